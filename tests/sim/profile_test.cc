// Host profiles and the profile cost model (issue 17): sim/profile.h, sim/profile_cost_model.h,
// sim/profile_sim_costs.h, sim/profile_calibration.h.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/scope.h"
#include "engine/client/state_ops.h"
#include "engine/trace/trace_writer.h"
#include "sim/op_time_scales.h"
#include "sim/profile.h"
#include "sim/profile_calibration.h"
#include "sim/profile_cost_model.h"
#include "sim/profile_sim_costs.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using Catch::Contains;

// MatMul points at 100 and 400 FLOPs (1000 and 2000 ns), metadata ops with constant times, and
// the executor's costs for one thread.
Profile TinyProfile() {
  Profile p;
  p.host = "test";
  p.points = {{"tiny", "mm", "MatMul", 1, 1, 100, 800, 1000, 10},
              {"tiny", "mm", "MatMul", 4, 1, 400, 2000, 2000, 10},
              {"tiny", "x", "Placeholder", 1, 1, 0, 0, 500, 10},
              {"tiny", "w", "Const", 1, 1, 0, 0, 300, 10},
              {"tiny", "mm", "MatMul", 1, 2, 100, 800, 700, 10}};
  p.steps = {{"tiny", 1, 1, 5000, 5200, 1800, 20, 1.5}};
  p.executor = {{1, 1000, 10, 20}, {2, 900, 12, 25}};
  return p;
}

// x: Placeholder [batch, 5] (fed), w: Const [5, 10], mm = x w: 2 * batch * 10 * 5 FLOPs.
std::unique_ptr<Graph> TinyGraph() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({-1, 5}));
  auto w = ops::Const(root.WithOpName("w"), Tensor(DataType::kFloat, {5, 10}));
  ops::MatMul(root.WithOpName("mm"), x, w);
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  return std::move(*g);
}

std::map<std::string, TensorShape> Feeds(int64_t batch) { return {{"x", TensorShape({batch, 5})}}; }

double ComputeNs(const CostModelHandle& h, const Graph& g, const std::string& node) {
  return h.costs.compute_s(*g.FindNode(node), DeviceDesc{}) * 1e9;
}

TEST_CASE("Profile round trip through HDF5", "[sim][profile]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  const Profile p = TinyProfile();
  REQUIRE(WriteProfile(path, p).ok());
  auto r = ReadProfile(path);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->schema_version == kProfileSchemaVersion);
  REQUIRE(r->points.size() == p.points.size());
  for (size_t i = 0; i < p.points.size(); ++i) {
    const ProfilePoint &a = p.points[i], &b = r->points[i];
    CHECK(a.model == b.model);
    CHECK(a.node == b.node);
    CHECK(a.op == b.op);
    CHECK(a.batch == b.batch);
    CHECK(a.threads == b.threads);
    CHECK(a.flops == b.flops);
    CHECK(a.bytes == b.bytes);
    CHECK(a.time_ns == b.time_ns);
    CHECK(a.samples == b.samples);
  }
  REQUIRE(r->steps.size() == 1);
  CHECK(r->steps[0].model == "tiny");
  CHECK(r->steps[0].median_step_ns == 5000);
  CHECK(r->steps[0].node_sum_ns == 1800);
  CHECK(r->steps[0].load_average == 1.5);
  REQUIRE(r->executor.size() == 2);
  CHECK(r->executor[1].threads == 2);
  CHECK(r->executor[1].per_node_pool_ns == 25);
}

TEST_CASE("Profile names longer than their fields are refused", "[sim][profile]") {
  fb::test::TempDir dir;
  Profile p = TinyProfile();
  p.points[0].node = std::string(300, 'n');
  const Status s = WriteProfile(dir.file("long.h5"), p);
  REQUIRE_FALSE(s.ok());
  REQUIRE_THAT(s.message(), Contains("node name") && Contains("longer than 191"));
}

TEST_CASE("Profile cost model: hand-computed prediction of a tiny graph", "[sim][profile]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  REQUIRE(WriteProfile(path, TinyProfile()).ok());
  auto g = TinyGraph();
  // Batch 2: 200 FLOPs, between the points at 100 (1000 ns) and 400 (2000 ns): log-log
  // interpolation gives 1000 * 2^(log 2 / log 4) = 1000 * sqrt(2) ns. Every node also costs the
  // executor's per_node_inline_ns (10). The step: per_step_ns (1000) plus the step correction,
  // the one configuration's residual (5000 - 1800 ns).
  auto h = MakeProfileSimCosts(*g, Feeds(2), "profile:" + path);
  INFO(h.status().ToString());
  REQUIRE(h.ok());
  CHECK(ComputeNs(*h, *g, "mm") == Approx(1000 * std::sqrt(2.0) + 10).epsilon(1e-9));
  CHECK(ComputeNs(*h, *g, "x") == Approx(500 + 10));
  CHECK(ComputeNs(*h, *g, "w") == Approx(300 + 10));
  CHECK(h->costs.dispatch_s("any device") == Approx((1000 + 3200) * 1e-9));
  CHECK_THAT(h->description,
             Contains("interpolated: 3 nodes") && Contains("extrapolated: 0 nodes") &&
                 Contains("from 1 configurations of 'tiny'"));
  // Two threads: the one MatMul point (700 ns at 100 FLOPs) and no Placeholder or Const point.
  auto h2 = MakeProfileSimCosts(*g, Feeds(1), "profile:" + path + ",threads=2");
  REQUIRE(h2.ok());
  CHECK(ComputeNs(*h2, *g, "mm") == Approx(700 + 12));
  CHECK_THAT(h2->description, Contains("unprofiled (analytic): 2 nodes [Const Placeholder]"));
}

TEST_CASE("Profile cost model: the simulated step of a tiny graph", "[sim][profile]") {
  fb::test::TempDir dir;
  const std::string profile = dir.file("host.h5"), graph = dir.file("g.json");
  REQUIRE(WriteProfile(profile, TinyProfile()).ok());
  REQUIRE(WriteGraphDefFile(TinyGraph()->ToGraphDef(), graph).ok());
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim --graph " + graph +
                          " --batch 2 --platform this_machine.xml --cost-model profile:" +
                          profile + " --metrics-json " + dir.file("m.json") + " > " +
                          dir.file("out.txt") + " 2>&1";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(dir.file("m.json"));
  const nlohmann::json m = nlohmann::json::parse(in);
  // dispatch 1000 + 3200 ns, then x, w and mm one after the other on the one device.
  const double expected_ns = 1000 + 3200 + (500 + 10) + (300 + 10) + (1000 * std::sqrt(2.0) + 10);
  CHECK(m["median_step_time_s"].get<double>() * 1e9 == Approx(expected_ns).epsilon(1e-6));
  CHECK_FALSE(m.contains("validation"));
  std::ifstream out(dir.file("out.txt"));
  const std::string text((std::istreambuf_iterator<char>(out)), {});
  CHECK_THAT(text, Contains("validation: no measurement of this configuration"));
}

TEST_CASE("Profile cost model flags extrapolated nodes", "[sim][profile]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  REQUIRE(WriteProfile(path, TinyProfile()).ok());
  auto g = TinyGraph();
  // Batch 100: 10,000 FLOPs, beyond the measured 400. The roofline fitted to (100, 1000) and
  // (400, 2000): 2000/3 ns + FLOPs * 10/3 ns.
  auto h = MakeProfileSimCosts(*g, Feeds(100), "profile:" + path);
  REQUIRE(h.ok());
  CHECK(ComputeNs(*h, *g, "mm") == Approx(2000.0 / 3 + 10000 * 10.0 / 3 + 10).epsilon(1e-9));
  CHECK_THAT(h->description, Contains("extrapolated: 1 nodes"));
  auto p = ReadProfile(path);
  REQUIRE(p.ok());
  auto m = ProfileCostModel::Create(*p, 1, path);
  REQUIRE(m.ok());
  CHECK(m->Predict("MatMul", "other", {10000, 0}).source ==
        ProfilePrediction::Source::kExtrapolated);
  CHECK(m->Predict("MatMul", "other", {300, 0}).source ==
        ProfilePrediction::Source::kInterpolated);
  CHECK(m->Predict("Conv2D", "c", {300, 0}).source == ProfilePrediction::Source::kUnprofiled);
}

TEST_CASE("Profile cost model prefers the node's own curve within its range", "[sim][profile]") {
  Profile p;
  // Two MatMuls of different efficiency at overlapping FLOPs.
  p.points = {{"m", "slow", "MatMul", 1, 1, 100, 0, 4000, 1},
              {"m", "slow", "MatMul", 2, 1, 200, 0, 8000, 1},
              {"m", "fast", "MatMul", 1, 1, 150, 0, 1500, 1},
              {"m", "fast", "MatMul", 2, 1, 300, 0, 3000, 1}};
  auto m = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(m.ok());
  CHECK(m->Predict("MatMul", "slow", {150, 0}).time_ns ==
        Approx(4000 * std::pow(2.0, std::log(1.5) / std::log(2.0))));
  CHECK(m->Predict("MatMul", "fast", {200, 0}).time_ns == Approx(2000));
  auto none = ProfileCostModel::Create(p, 4, "p.h5");
  REQUIRE_FALSE(none.ok());
  REQUIRE_THAT(none.status().message(), Contains("p.h5") &&
                                            Contains("no measurement with 4 threads") &&
                                            Contains("thread counts: 1"));
}

TEST_CASE("Step correction is fitted on the profiled configurations", "[sim][profile]") {
  Profile p = TinyProfile();
  // Residuals (step - node sum) of 900, 1000 and 5000 ns: the smallest is the executor's.
  p.steps = {{"a", 1, 1, 1000 + 900, 0, 1000, 20, 0},
             {"a", 4, 1, 11000 + 1000, 0, 11000, 20, 0},
             {"a", 8, 1, 20000 + 5000, 0, 20000, 20, 0}};
  auto m = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(m.ok());
  CHECK(m->step_overhead_ns() == Approx(900));
  CHECK(m->node_time_factor() == 0);
  // Two threads: steps 20% and 10% shorter than their node sums (kernels overlapping).
  p.steps = {{"a", 1, 2, 1000 - 200, 0, 1000, 20, 0},
             {"a", 4, 2, 11000 - 1100, 0, 11000, 20, 0}};
  auto m2 = ProfileCostModel::Create(p, 2, "p.h5");
  REQUIRE(m2.ok());
  CHECK(m2->step_overhead_ns() == 0);
  CHECK(m2->node_time_factor() == Approx(-0.2));
  // At most -0.5.
  p.steps = {{"a", 1, 2, 100, 0, 1000, 20, 0}};
  auto m3 = ProfileCostModel::Create(p, 2, "p.h5");
  REQUIRE(m3.ok());
  CHECK(m3->node_time_factor() == Approx(-0.5));
}

TEST_CASE("Step correction uses the simulated model's configurations", "[sim][profile]") {
  Profile p;
  p.points = {{"big", "conv", "Conv2D", 1, 1, 100, 0, 1000, 1},
              {"big", "fc", "MatMul", 1, 1, 100, 0, 1000, 1},
              {"small", "fc", "MatMul", 1, 1, 10, 0, 100, 1}};
  // Residuals: "big" 3000 and 5000 ns, "small" 100 ns.
  p.steps = {{"big", 1, 1, 2000 + 3000, 0, 2000, 20, 0},
             {"big", 2, 1, 4000 + 5000, 0, 4000, 20, 0},
             {"small", 1, 1, 100 + 100, 0, 100, 20, 0}};
  auto m = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(m.ok());
  CHECK(m->MatchingModel({"conv", "fc"}) == "big");
  CHECK(m->MatchingModel({"fc"}) == "small");
  CHECK(m->MatchingModel({"fc", "x", "y"}).empty());
  // The simulated graph keeps nodes the run's default passes removed before the profile traced it.
  CHECK(m->MatchingModel({"conv", "fc", "gradients/tuple/control_dependency"}) == "big");
  CHECK(m->Correction("big").step_overhead_ns == Approx(3000));
  CHECK(m->Correction("big").configurations == 2);
  CHECK(m->Correction("small").step_overhead_ns == Approx(100));
  CHECK(m->Correction("").step_overhead_ns == Approx(100));  // over every configuration
  CHECK(m->Correction("").configurations == 3);
}

TEST_CASE("Calibration of the analytic CPU from a profile", "[sim][profile]") {
  Profile p;
  // 1 GFLOP/s compute-bound, 1 GB/s memory-bound, 100 ns without work; the step is twice the
  // roofline's sum, so every rate halves and the launch doubles.
  p.points = {{"m", "mm", "MatMul", 1, 1, 1e6, 1e3, 1e6 + 100, 1},
              {"m", "add", "Add", 1, 1, 1e3, 1e5, 1e5 + 100, 1},
              {"m", "id", "Identity", 1, 1, 0, 0, 100, 1}};
  p.steps = {{"m", 1, 1, 2 * (1e6 + 1e5 + 300), 0, 0, 10, 0}};
  auto c = CalibrateCpu(p, 1, "p.h5");
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  CHECK(c->step_scale == Approx(2));
  CHECK(c->flops_per_s == Approx(0.5e9));
  CHECK(c->memory_bandwidth_bytes_per_s == Approx(0.5e9));
  CHECK(c->launch_overhead_ns == Approx(200));
  auto bad = CalibrateCpu(p, 2, "p.h5");
  REQUIRE_FALSE(bad.ok());
  REQUIRE_THAT(bad.status().message(), Contains("p.h5"));
}

// A trace of the tiny graph whose MatMul produced `mm_bytes`.
std::string TinyTrace(const fb::test::TempDir& dir, int64_t mm_bytes) {
  const std::string path = dir.file("b" + std::to_string(mm_bytes) + ".h5");
  auto w = TraceWriter::Create(path, DefaultTraceMetadata(TraceMode::kReal, 0, nullptr));
  REQUIRE(w.ok());
  TraceEvent e;
  e.device = "/job:localhost/replica:0/task:0/device:CPU:0";
  e.node = "mm";
  e.op = "MatMul";
  e.start_ns = 10;
  e.end_ns = 1010;
  e.bytes = mm_bytes;
  REQUIRE((*w)->AddEvent(e).ok());
  REQUIRE((*w)->AddStep(0, {}, {}).ok());
  // Nine timed steps without events, shorter than the traced one (as `flowbench benchmark
  // --trace` writes them): typical steps must be picked among the traced steps.
  for (int64_t s = 1; s < 10; ++s) {
    StepTotals t;
    t.start_ns = 2000 * s;
    t.end_ns = 2000 * s + 500;
    REQUIRE((*w)->AddStep(s, {}, t).ok());
  }
  REQUIRE((*w)->Close().ok());
  return path;
}

TEST_CASE("measured: refuses a trace of another batch size", "[sim][profile]") {
  fb::test::TempDir dir;
  auto g = TinyGraph();
  // Batch 2: mm is [2, 10] float32, 80 bytes; a batch-4 trace recorded 160.
  const std::string b4 = TinyTrace(dir, 160);
  auto refused = MakeSimCosts(*g, Feeds(2), "measured:" + b4);
  REQUIRE_FALSE(refused.ok());
  REQUIRE_THAT(refused.status().message(),
               Contains(b4) && Contains("node 'mm' produced 160 bytes there and 80 bytes here") &&
                   Contains("profile:FILE"));
  auto same = MakeSimCosts(*g, Feeds(4), "measured:" + b4);
  INFO(same.status().ToString());
  REQUIRE(same.ok());
  CHECK(same->measured_step_s.size() == 10);
  CHECK_THAT(same->description, Contains("(1 nodes)"));
}

std::string BadFile(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/tests/data/bad/" + name;
}

TEST_CASE("Bad profile files give errors naming the file", "[sim][profile]") {
  struct Case {
    std::string file, message;
  };
  const std::vector<Case> cases = {
      {"profile_missing_executor.h5", "executor"},
      {"profile_version_99.h5", "schema_version is 99"},
      {"profile_truncated.h5", "profile_truncated.h5"},
      {"profile_not_a_profile.h5", "not a flowbench profile"},
      {"profile_negative_time.h5", "negative or non-finite"},
      {"profile_wrong_type.h5", "points"},
  };
  for (const Case& c : cases) {
    const std::string path = BadFile(c.file);
    auto r = ReadProfile(path);
    INFO(c.file << ": " << r.status().ToString());
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Contains(c.file) && Contains(c.message));
  }
  auto missing = ReadProfile("/nonexistent/dir/host.h5");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Contains("/nonexistent/dir/host.h5"));
  // Through the simulator's spec as well.
  auto g = TinyGraph();
  auto h = MakeSimCosts(*g, Feeds(2), "profile:" + BadFile("profile_version_99.h5"));
  REQUIRE_FALSE(h.ok());
  CHECK_THAT(h.status().message(), Contains("profile_version_99.h5"));
  auto t = MakeSimCosts(*g, Feeds(2), "profile:x.h5,threads=zero");
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(t.status().message(), Contains("threads must be an integer"));
}

}  // namespace
}  // namespace fb::sim

namespace fb::sim {
namespace {

TEST_CASE("Calibration gives per-op rate curves and time scales", "[sim][profile]") {
  Profile p;
  // Launch 100 ns (Identity). Compute-bound nodes (FLOPs >= bytes): 2e6 FLOPs in 4e6 ns, so the
  // host rate is 0.5 FLOP/ns; memory-bound: 1e5 bytes in 1e5 ns, 1 B/ns. Each op type's curve
  // has one knot: MatMul 1e6 FLOPs at 1e6 FLOP / 1e6 ns, Conv2D 1e6 FLOPs / 3e6 ns, Add 1e5
  // bytes / 1e5 ns; Identity, without work, the scale 100 / 100.
  p.points = {{"m", "mm", "MatMul", 1, 1, 1e6, 1e3, 1e6 + 100, 1},
              {"m", "conv", "Conv2D", 1, 1, 1e6, 1e3, 3e6 + 100, 1},
              {"m", "add", "Add", 1, 1, 1e3, 1e5, 1e5 + 100, 1},
              {"m", "id", "Identity", 1, 1, 0, 0, 100, 1}};
  const double node_sum = 1e6 + 3e6 + 1e5 + 400;
  // The measured step is twice the node sum: every rate halves, the launch doubles.
  p.steps = {{"m", 1, 1, 2 * node_sum, 0, node_sum, 10, 0}};
  auto c = CalibrateCpu(p, 1, "p.h5");
  REQUIRE(c.ok());
  CHECK(c->step_scale == Approx(2));  // the model reproduces every node before the scale
  CHECK(c->launch_overhead_ns == Approx(200));
  CHECK(c->flops_per_s == Approx(0.25e9));
  CHECK(c->memory_bandwidth_bytes_per_s == Approx(0.5e9));
  REQUIRE(c->op_flops_rate.at("MatMul").knots.size() == 1);
  CHECK(c->op_flops_rate.at("MatMul").knots[0].first == Approx(1e6));
  CHECK(c->op_flops_rate.at("MatMul").knots[0].second == Approx(0.5e9));
  CHECK(c->op_flops_rate.at("Conv2D").knots[0].second == Approx(1e9 / 6));
  CHECK(c->op_bytes_rate.at("Add").knots[0].second == Approx(0.5e9));
  CHECK(c->op_flops_rate.count("Add") == 0);
  CHECK(c->op_time_scale.at("Identity") == Approx(1));
  CHECK(c->op_time_scale.count("MatMul") == 0);
  auto xml = CalibratedCpuXml(*c);
  REQUIRE(xml.ok());
  CHECK_THAT(*xml, Contains("<prop id=\"op_flops_per_s:Conv2D\" value=\"1e+06:1.667e+08\"/>"));
  CHECK_THAT(*xml, Contains("<prop id=\"op_bytes_per_s:Add\" value=\"1e+05:5e+08\"/>"));
  CHECK_THAT(*xml, Contains("<prop id=\"op_time_scale:Identity\" value=\"1\"/>"));
  auto noted = CalibratedCpuXml(*c, "profile:p.h5 (1 threads)");
  REQUIRE(noted.ok());
  CHECK_THAT(*noted, Contains("<!-- Calibrated from profile:p.h5 (1 threads) over 1 "
                              "configurations") && Contains("Step scale k = 2. -->"));
  auto bad = CalibratedCpuXml(*c, "a--b.h5");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Contains("a--b.h5"));
}

TEST_CASE("Calibration fits one knot per half-decade of kernel size", "[sim][profile]") {
  Profile p;
  // Conv2D at 1 GFLOP runs 3x faster per FLOP than at 1 MFLOP: two knots. Between them the rate
  // is interpolated in log-log: at 3.16e7 FLOPs, sqrt(1/3 * 1) FLOP/ns.
  p.points = {{"m", "small", "Conv2D", 1, 1, 1e6, 1e3, 3e6 + 100, 1},
              {"m", "large", "Conv2D", 1, 1, 1e9, 1e3, 1e9 + 100, 1},
              {"m", "add", "Add", 1, 1, 1e3, 1e5, 1e5 + 100, 1},
              {"m", "id", "Identity", 1, 1, 0, 0, 100, 1}};
  const double node_sum = 3e6 + 1e9 + 1e5 + 400;
  p.steps = {{"m", 1, 1, node_sum, 0, node_sum, 10, 0}};
  auto c = CalibrateCpu(p, 1, "p.h5");
  REQUIRE(c.ok());
  CHECK(c->step_scale == Approx(1));
  const OpRateCurve& conv = c->op_flops_rate.at("Conv2D");
  REQUIRE(conv.knots.size() == 2);
  CHECK(conv.RateAt(1e6) == Approx(1e9 / 3));
  CHECK(conv.RateAt(std::sqrt(1e6 * 1e9)) == Approx(1e9 / std::sqrt(3.0)));
  CHECK(conv.RateAt(1e12) == Approx(1e9));  // saturates beyond the largest profiled kernel
  CHECK(conv.RateAt(1e3) == Approx(1e9 / 3));
  // The analytic time of a 1e8-FLOP convolution on the calibrated device: launch + 1e8 / rate.
  const double rate = 1e9 / std::pow(3.0, 1.0 / 3);  // 1e8 is 2/3 of the way in log(work)
  CHECK(EfficientComputeNs(CalibratedEfficiency(*c), "Conv2D", OpWork{1e8, 1e3},
                           CalibratedDevice(*c)) == Approx(100 + 1e8 / rate * 1e9));
}

TEST_CASE("op_time_scale properties are checked", "[sim][profile]") {
  auto ok = ParseOpTimeScales({{"op_time_scale:MatMul", "0.5"}, {"device_type", "CPU"}}, "cpu0");
  REQUIRE(ok.ok());
  CHECK(ok->size() == 1);
  CHECK(ok->at("MatMul") == 0.5);
  for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
           {"op_time_scale:MatMul", "0"}, {"op_time_scale:MatMul", "nan"},
           {"op_time_scale:MatMul", "2x"}, {"op_time_scale:", "1"}}) {
    auto bad = ParseOpTimeScales({{key, value}}, "cpu0");
    INFO(key << "=" << value);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.status().message(), Contains("host 'cpu0'") && Contains(key));
  }
}

// The tiny graph's step with --cost-model analytic on a one-CPU platform with `props`.
double AnalyticStepNs(const fb::test::TempDir& dir, const std::string& props,
                      const std::string& tag) {
  const std::string platform = dir.file(tag + ".xml"), graph = dir.file("g.json");
  std::ofstream(platform) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="machine" routing="Full">
    <host id="cpu0" speed="1000000000f">
      <prop id="memory_bandwidth_bytes_per_s" value="1000000000"/>
      <prop id="launch_overhead_ns" value="1000"/>
)" << props << R"(    </host>
  </zone>
</platform>
)";
  REQUIRE(WriteGraphDefFile(TinyGraph()->ToGraphDef(), graph).ok());
  const std::string json = dir.file(tag + ".json");
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim --graph " + graph +
                          " --batch 2 --platform " + platform + " --metrics-json " + json +
                          " > " + dir.file(tag + ".txt") + " 2>&1";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(json);
  return nlohmann::json::parse(in)["median_step_time_s"].get<double>() * 1e9;
}

TEST_CASE("Analytic cost model applies the platform's op_time_scale", "[sim][profile]") {
  fb::test::TempDir dir;
  const double plain = AnalyticStepNs(dir, "", "plain");
  const double scaled =
      AnalyticStepNs(dir, "      <prop id=\"op_time_scale:MatMul\" value=\"3\"/>\n", "scaled");
  // mm alone is scaled: 1000 ns launch + 320 bytes at 1 B/ns (x 40, w 200 read, 80 written;
  // 200 FLOPs at 1 FLOP/ns is less), three times.
  CHECK(scaled - plain == Approx(2 * (1000 + 320)).epsilon(1e-6));
}

TEST_CASE("Analytic cost model applies the platform's op rate curves", "[sim][profile]") {
  fb::test::TempDir dir;
  const double plain = AnalyticStepNs(dir, "", "plain");
  // mm is memory-bound (320 bytes at 1 B/ns > 200 FLOPs at 1 FLOP/ns): at 0.1 B/ns it takes
  // 3200 ns instead of 320.
  const double curve = AnalyticStepNs(
      dir, "      <prop id=\"op_bytes_per_s:MatMul\" value=\"100:1e8 1000:1e8\"/>\n", "curve");
  CHECK(curve - plain == Approx(3200 - 320).epsilon(1e-6));
  // A FLOP curve does not apply to a memory-bound node.
  const double flops = AnalyticStepNs(
      dir, "      <prop id=\"op_flops_per_s:MatMul\" value=\"100:1e6\"/>\n", "flops");
  CHECK(flops == Approx(plain).epsilon(1e-9));
}

TEST_CASE("flowbench sim refuses a bad op rate curve naming the host and property",
          "[sim][profile]") {
  fb::test::TempDir dir;
  const std::string platform = dir.file("bad.xml"), graph = dir.file("g.json");
  std::ofstream(platform) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="machine" routing="Full">
    <host id="cpu9" speed="1000000000f">
      <prop id="op_flops_per_s:MatMul" value="1e6:1e9 1e5:2e9"/>
    </host>
  </zone>
</platform>
)";
  REQUIRE(WriteGraphDefFile(TinyGraph()->ToGraphDef(), graph).ok());
  const std::string out = dir.file("out.txt");
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim --graph " + graph +
                          " --batch 2 --platform " + platform + " > " + out + " 2>&1";
  CHECK(std::system(cmd.c_str()) != 0);
  std::ifstream in(out);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Contains("host 'cpu9'") && Contains("op_flops_per_s:MatMul") &&
                       Contains("must be larger than the previous knot's"));
}

}  // namespace
}  // namespace fb::sim
