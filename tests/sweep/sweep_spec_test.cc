// Sweep specs: grid expansion (lists, ranges, zipped groups, scoped flags), point hashes, and
// the messages of bad specs (file, line, key).
#include <catch2/catch.hpp>

#include "sweep/sweep_grid.h"
#include "sweep/sweep_spec.h"

namespace fb::sweep {
namespace {

// A hand-made catalog: `sim` and `train` with a few of their flags; "verbose" is a switch.
FlagCatalog Flags() {
  FlagCatalog f;
  f.commands["sim"] = {{"model", true},       {"placer", true},  {"platform", true},
                       {"batch-size", true},  {"ps", true},      {"schedule", true},
                       {"compression", true}, {"verbose", false}};
  f.commands["train"] = {
      {"model", true}, {"placer", true}, {"devices", true}, {"batch-size", true}, {"steps", true}};
  f.commands["place"] = {{"model", true}, {"placers", true}};
  return f;
}

SweepSpec Parse(const std::string& text) {
  StatusOr<SweepSpec> s = ParseSweepSpec(text, "spec.yaml", Flags());
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return *s;
}

std::string ParseError(const std::string& text) {
  StatusOr<SweepSpec> s = ParseSweepSpec(text, "bad.yaml", Flags());
  REQUIRE_FALSE(s.ok());
  return s.status().message();
}

std::vector<std::string> Values(const SweepPoint& p) {
  std::vector<std::string> v;
  for (const auto& kv : p.settings) v.push_back(kv.first + "=" + kv.second);
  return v;
}

TEST_CASE("Sweep grid is the cross product of list axes, first axis slowest", "[sweep][spec]") {
  SweepSpec spec = Parse(
      "fixed: {model: lenet}\naxes:\n  placer: [single, greedy]\n"
      "  batch-size: [16, 32, 64]\n");
  REQUIRE(spec.NumPoints() == 6);
  std::vector<SweepPoint> points = ExpandGrid(spec);
  REQUIRE(points.size() == 6);
  CHECK(Values(points[0]) ==
        std::vector<std::string>{"model=lenet", "placer=single", "batch-size=16"});
  CHECK(Values(points[2]) ==
        std::vector<std::string>{"model=lenet", "placer=single", "batch-size=64"});
  CHECK(Values(points[3]) ==
        std::vector<std::string>{"model=lenet", "placer=greedy", "batch-size=16"});
  CHECK(points[5].index == 5);
}

TEST_CASE("Sweep ranges expand arithmetic and geometric steps, ends included", "[sweep][spec]") {
  SweepSpec spec = Parse(
      "axes:\n  batch-size: {from: 16, to: 64, step: 16}\n"
      "  ps: {from: 1, to: 32, times: 2}\n");
  REQUIRE(spec.groups.size() == 2);
  CHECK(spec.groups[0].members[0].values == std::vector<std::string>{"16", "32", "48", "64"});
  CHECK(spec.groups[1].members[0].values ==
        std::vector<std::string>{"1", "2", "4", "8", "16", "32"});
  CHECK(spec.NumPoints() == 24);
  // A fractional step gives fractions; 0.1 * 3 is 0.30000000000000004 and still included.
  SweepSpec f = Parse("axes:\n  ps: {from: 0, to: 0.3, step: 0.1}\n");
  CHECK(f.groups[0].members[0].values == std::vector<std::string>{"0", "0.1", "0.2", "0.3"});
  // Integer ends past 2^53 are not rounded through int64 (no overflow): floating point.
  SweepSpec big = Parse("axes:\n  ps: {from: 99999999999999999999, to: 99999999999999999999}\n");
  CHECK(big.groups[0].members[0].values == std::vector<std::string>{"1e+20"});
}

TEST_CASE("Sweep zipped lists advance together as one axis", "[sweep][spec]") {
  SweepSpec spec = Parse(
      "axes: {placer: [single, greedy]}\nzip:\n"
      "  - {real.devices: [cpu:1, cpu:2, cpu:4], sim.platform: [a.xml, b.xml, c.xml]}\n");
  REQUIRE(spec.NumPoints() == 6);
  std::vector<SweepPoint> points = ExpandGrid(spec);
  CHECK(Values(points[1]) ==
        std::vector<std::string>{"placer=single", "real.devices=cpu:2", "sim.platform=b.xml"});
  // Scoped names go to their mode's command only.
  CHECK(CommandArgs(points[1], "sim", "sim", Flags()) ==
        std::vector<std::string>{"sim", "--placer", "single", "--platform", "b.xml"});
  CHECK(CommandArgs(points[1], "real", "train", Flags()) ==
        std::vector<std::string>{"train", "--placer", "single", "--devices", "cpu:2"});
}

TEST_CASE("Sweep passes a flag only to the commands that have it and switches bare",
          "[sweep][spec]") {
  SweepSpec spec = Parse("mode: both\nfixed: {steps: 5, verbose: true, schedule: fifo}\n");
  std::vector<SweepPoint> points = ExpandGrid(spec);
  REQUIRE(points.size() == 1);
  CHECK(CommandArgs(points[0], "sim", "sim", Flags()) ==
        std::vector<std::string>{"sim", "--verbose", "--schedule", "fifo"});
  CHECK(CommandArgs(points[0], "real", "train", Flags()) ==
        std::vector<std::string>{"train", "--steps", "5"});
  std::vector<SweepRun> runs = PlanRuns(spec, points, Flags(), "abc");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].mode == "sim");
  CHECK(runs[1].mode == "real");
}

TEST_CASE("Sweep point hash ignores setting order and changes with values and commit",
          "[sweep][spec]") {
  using Settings = std::vector<std::pair<std::string, std::string>>;
  const Settings s = {{"placer", "greedy"}, {"ps", "2"}};
  const std::string a = PointHash("sim", "sim", s, "c1");
  CHECK(a.size() == 16);
  CHECK(a == PointHash("sim", "sim", Settings{{"ps", "2"}, {"placer", "greedy"}}, "c1"));
  CHECK(a != PointHash("sim", "sim", Settings{{"ps", "3"}, {"placer", "greedy"}}, "c1"));
  CHECK(a != PointHash("sim", "sim", s, "c2"));
  CHECK(a != PointHash("real", "sim", s, "c1"));
  CHECK(a != PointHash("sim", "place", s, "c1"));
  // Name/value boundaries matter: {"ab": "c"} is not {"a": "bc"}.
  CHECK(PointHash("sim", "sim", Settings{{"ab", "c"}}, "c") !=
        PointHash("sim", "sim", Settings{{"a", "bc"}}, "c"));
}

TEST_CASE("Sweep points that differ only in a setting the command lacks keep distinct keys",
          "[sweep][spec]") {
  // `hidden` goes to the real command only; the simulated runs of the three points have the
  // same command line but are three points.
  FlagCatalog flags = Flags();
  flags.commands["train"]["hidden"] = true;
  StatusOr<SweepSpec> spec =
      ParseSweepSpec("sim_command: place\naxes: {hidden: [8, 16, 32]}\n", "s.yaml", flags);
  REQUIRE(spec.ok());
  std::vector<SweepRun> runs = PlanRuns(*spec, ExpandGrid(*spec), flags, "c");
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].args == runs[1].args);
  CHECK(runs[0].hash != runs[1].hash);
  CHECK(runs[1].hash != runs[2].hash);
}

TEST_CASE("Sweep repetitions, validation picks and rank shares", "[sweep][spec]") {
  SweepSpec spec = Parse("repetitions: 2\naxes: {ps: {from: 0, to: 9}}\n");
  std::vector<SweepPoint> points = ExpandGrid(spec);
  REQUIRE(points.size() == 10);
  std::vector<SweepRun> runs = PlanRuns(spec, points, Flags(), "c");
  REQUIRE(runs.size() == 20);
  CHECK(runs[1].point == 0);
  CHECK(runs[1].repetition == 1);
  CHECK(runs[0].hash == runs[1].hash);
  CHECK(runs[0].key() != runs[1].key());
  std::vector<SweepRun> v = PlanValidationRuns(spec, points, 3, Flags(), "c");
  REQUIRE(v.size() == 6);
  CHECK(v[0].point == 0);
  CHECK(v[2].point == 4);
  CHECK(v[4].point == 9);
  CHECK(v[0].command == "train");
  std::vector<SweepRun> r1 = RankShare(runs, 1, 3);
  REQUIRE(r1.size() == 7);
  CHECK(r1[0].point == 0);  // run 1
  CHECK(r1[1].point == 2);  // run 4
}

TEST_CASE("Sweep spec errors name the file, line and key", "[sweep][spec][errors]") {
  CHECK_THAT(ParseError("fixed: {model: lenet}\naxes:\n  placerz: [a]\n"),
             Catch::Contains("bad.yaml:3") && Catch::Contains("axes.placerz") &&
                 Catch::Contains("unknown flag --placerz") && Catch::Contains("flowbench sim"));
  CHECK_THAT(ParseError("axes:\n  sim.devices: [cpu:1]\n"),
             Catch::Contains("bad.yaml:2") && Catch::Contains("`flowbench sim` has no such flag"));
  CHECK_THAT(ParseError("axes:\n  placer: []\n"), Catch::Contains("bad.yaml:2") &&
                                                      Catch::Contains("axes.placer") &&
                                                      Catch::Contains("empty axis"));
  CHECK_THAT(ParseError("axes:\n  ps: {from: 8, to: 1}\n"),
             Catch::Contains("axes.ps") && Catch::Contains("'from' 8 is above 'to' 1"));
  CHECK_THAT(ParseError("axes:\n  ps: {from: 1, to: 8, step: 0}\n"),
             Catch::Contains("'step' must be > 0"));
  CHECK_THAT(ParseError("axes:\n  ps: {from: 1, to: 8, times: 1}\n"),
             Catch::Contains("'times' > 1"));
  CHECK_THAT(ParseError("axes:\n  ps: {from: one, to: 8}\n"),
             Catch::Contains("'from' must be a finite number, got 'one'"));
  CHECK_THAT(ParseError("axes:\n  ps: {to: 8}\n"), Catch::Contains("range needs a number 'from'"));
  CHECK_THAT(ParseError("axes:\n  ps: {from: 1e20, to: 2e20, step: 1}\n"),
             Catch::Contains("range step 1 is too small to move from 1e+20"));
  CHECK_THAT(ParseError("zip:\n  - placer: [a, b]\n    ps: [1, 2, 3]\n"),
             Catch::Contains("bad.yaml:3") && Catch::Contains("zip[0].ps") &&
                 Catch::Contains("placer has 2 values, ps has 3"));
  CHECK_THAT(ParseError("axes: {placer: [a]}\nzip:\n  - {placer: [b]}\n"),
             Catch::Contains("zip[0].placer") && Catch::Contains("given twice"));
  CHECK_THAT(ParseError("mode: fast\n"),
             Catch::Contains("bad.yaml:1") && Catch::Contains("sim, real or both"));
  CHECK_THAT(ParseError("axis: {placer: [a]}\n"), Catch::Contains("axis: unknown key"));
  CHECK_THAT(ParseError("fixed: {metrics-json: m.json}\n"), Catch::Contains("set by the sweep"));
  CHECK_THAT(ParseError("fixed: {placer: [a, b]}\n"), Catch::Contains("lists go under axes"));
  CHECK_THAT(ParseError("real_command: fly\n"), Catch::Contains("unknown command 'fly'"));
  CHECK_THAT(ParseError("repetitions: 0\n"), Catch::Contains("repetitions"));
  // The name is the default output directory's last component (sweeps/<name>).
  for (const char* name : {"../../etc", "/etc", "a/b", "\"\"", "..", "\"a\\0b\""}) {
    INFO(name);
    CHECK_THAT(ParseError("name: " + std::string(name) + "\naxes: {ps: [1]}\n"),
               Catch::Contains("bad.yaml:1") && Catch::Contains("name: must be 1 to 200"));
  }
  CHECK(Parse("name: lenet-v2.1_x\naxes: {ps: [1]}\n").name == "lenet-v2.1_x");
  CHECK_THAT(ParseError("repetitions: 99999999999999999999999\n"),
             Catch::Contains("must be an integer in [1, 10000]"));
  CHECK_THAT(ParseError("axes: {placer: [a, b\n"),
             Catch::Contains("bad.yaml:") && Catch::Contains("YAML"));
  CHECK_THAT(ParseError("axes:\n  ps: {from: 1, to: 2000000}\n"),
             Catch::Contains("more than 1000000"));
  CHECK_THAT(ParseError("axes:\n  ps: {from: 1, to: 1000}\n  placer: {from: 1, to: 1001}\n"),
             Catch::Contains("more than 1000000 points"));
}

TEST_CASE("Sweep spec file that cannot be read is NotFound naming it", "[sweep][spec][errors]") {
  StatusOr<SweepSpec> s = ReadSweepSpec("/nonexistent/s.yaml", Flags());
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kNotFound);
  CHECK_THAT(s.status().message(), Catch::Contains("/nonexistent/s.yaml"));
}

// A directory read as an empty document: "a sweep spec is a YAML map".
TEST_CASE("Sweep spec that is a directory is refused naming it", "[sweep][spec][errors]") {
  const std::string dir = std::string(FB_SOURCE_DIR) + "/experiments/sweeps";
  StatusOr<SweepSpec> s = ReadSweepSpec(dir, Flags());
  REQUIRE_FALSE(s.ok());
  CHECK(s.status().code() == Code::kInvalidArgument);
  CHECK_THAT(s.status().message(), Catch::Contains("sweep spec '" + dir + "' is a directory"));
}

TEST_CASE("Sweep step-time metrics and their units", "[sweep][spec]") {
  CHECK(DefaultStepTimeMetric("sim") == "median_step_time_s");
  CHECK(DefaultStepTimeMetric("lstm").empty());
  // `real_command: benchmark` with --validate or mode both needed step_time_metric spelt out.
  CHECK(DefaultStepTimeMetric("benchmark") == "ms_per_step_median");
  CHECK(MetricSecondsPerUnit("predicted_step_ns") == 1e-9);
  CHECK(MetricSecondsPerUnit("ms_per_step_median") == 1e-3);
  CHECK(MetricSecondsPerUnit("median_step_time_s") == 1);
  SweepSpec spec = Parse("sim_command: place\nstep_time_metric: {real: wall_ms}\n");
  CHECK(spec.sim_step_metric == "predicted_step_ns");
  CHECK(spec.real_step_metric == "wall_ms");
}

}  // namespace
}  // namespace fb::sweep
