// Per-step variation of the workers (sim/step_variation.h): start offsets that desynchronise
// async replicas, shifted-exponential compute noise, stragglers on worker partitions only, and
// the errors of --compute-noise and --start-spread. Golden times by hand on the 4-host star
// (sim/platforms/star_4.xml: 1 GFLOP/s hosts, full-duplex 100 MB/s, 1 ms links to a crossbar).
#include "sim/step_variation.h"

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/simulator.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

// The toy step with g 1 s on the worker and the update 0.1 s on the parameter server; w and g
// are 1 MB.
StatusOr<SimResult> RunToy(const WorkloadOptions& w, Simulation* sim) {
  auto g = MakeGraph(test::kToyTrainingStep);
  RETURN_IF_ERROR(sim->LoadPlatform(PlatformPath("star_4.xml")));
  SimRunOptions opts;
  opts.workload = w;
  return sim->Run(*g, TableCosts({{"g", 1.0}, {"apply", 0.1}},
                                 {{"w", 1000000}, {"read", 1000000}, {"g", 1000000}}),
                  opts);
}

WorkloadOptions Async(int replicas, int steps) {
  WorkloadOptions w;
  w.replicas = replicas;
  w.ps = 1;
  w.mode = SyncMode::kAsync;
  w.steps = steps;
  w.devices_per_replica = 1;  // one worker host per replica, even for a single replica
  return w;
}

StatusOr<SimResult> ToyInChild(const WorkloadOptions& w) {
  return test::RunSimInChild([&w] {
    Simulation sim;
    return RunToy(w, &sim);
  });
}

// The toy run in a child process (SimGrid keeps one engine per process, sim_test_util.h): step
// times, makespan and when replica 1 began its step 0 (-1 when it has none).
struct ToySteps {
  std::vector<double> step_times_s;
  double makespan_s = 0, replica1_start_s = -1;
  std::string error;
};

ToySteps ToyStepsInChild(const WorkloadOptions& w) {
  const std::string text = test::TextFromChild([&w] {
    Simulation sim;
    StatusOr<SimResult> r = RunToy(w, &sim);
    if (!r.ok()) return nlohmann::json{{"error", r.status().ToString()}}.dump();
    double start1 = -1;
    for (const SimStep& s : r->steps)
      if (s.rank == 1 && s.step == 0) start1 = s.start_s;
    return nlohmann::json{{"step_times_s", r->step_times_s}, {"makespan_s", r->makespan_s},
                          {"replica1_start_s", start1}}.dump();
  });
  const nlohmann::json j = nlohmann::json::parse(text);
  ToySteps out;
  if (j.contains("error")) {
    out.error = j["error"].get<std::string>();
    return out;
  }
  out.step_times_s = j["step_times_s"].get<std::vector<double>>();
  out.makespan_s = j["makespan_s"].get<double>();
  out.replica1_start_s = j["replica1_start_s"].get<double>();
  return out;
}

TEST_CASE("Async replicas in lockstep contend for the parameter server", "[sim][step_variation]") {
  auto r = ToyInChild(Async(2, 2));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // w to 2 workers shares the PS up-link: 2e6 B / 1e8 B/s + 2 ms = 0.022; g 1 s: 1.022; the two
  // gradients share the PS down-link: 1.044; the two 0.1 s applies share the PS core: 1.244.
  REQUIRE(r->step_times_s.size() == 4);
  for (double t : r->step_times_s) CHECK(t == Approx(1.244).epsilon(1e-6));
}

TEST_CASE("A start spread desynchronises async replicas: hand-computed offsets", "[sim][step_variation]") {
  WorkloadOptions w = Async(2, 2);
  w.start_spread_s = 1.0;  // replica 1 starts 1 * 1.0 / 2 = 0.5 s late
  CHECK(StartOffsetSeconds(w, 0) == 0);
  CHECK(StartOffsetSeconds(w, 1) == 0.5);
  const ToySteps r = ToyStepsInChild(w);
  INFO(r.error);
  REQUIRE(r.error.empty());
  // Alone on the PS: w 1e6 / 1e8 + 2 ms = 0.012, g 1 s, the gradient 0.012, apply 0.1: 1.124 per
  // step. Replica 0 runs [0, 1.124] and [1.124, 2.248], replica 1 [0.5, 1.624] and
  // [1.624, 2.748]: their transfers and applies never overlap.
  REQUIRE(r.step_times_s.size() == 4);
  for (double t : r.step_times_s) CHECK(t == Approx(1.124).epsilon(1e-6));
  CHECK(r.replica1_start_s == Approx(0.5).epsilon(1e-9));
  CHECK(r.makespan_s == Approx(2.748).epsilon(1e-6));
}

TEST_CASE("Compute noise multiplies a worker step's compute by 1 + E", "[sim][step_variation]") {
  WorkloadOptions w = Async(1, 6);
  w.compute_noise_mean = 0.5;
  w.seed = 3;
  auto r = ToyInChild(w);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // One replica: 0.012 + 1 s x S(step) + 0.012 + 0.1 (the PS's apply is not slowed).
  REQUIRE(r->step_times_s.size() == 6);
  bool varied = false;
  for (int s = 0; s < 6; ++s) {
    const double factor = ComputeSlowdown(w, 0, s);
    CHECK(factor >= 1);
    varied |= std::abs(factor - ComputeSlowdown(w, 0, 0)) > 1e-3;
    CHECK(r->step_times_s[s] == Approx(0.124 + factor).epsilon(1e-6));
  }
  CHECK(varied);
}

TEST_CASE("Stragglers slow a worker's compute but not its async parameter-server instance", "[sim][step_variation]") {
  WorkloadOptions w = Async(1, 2);
  w.straggler_probability = 1;
  w.straggler_slowdown = 2;
  auto r = ToyInChild(w);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // g takes 2 s; the apply on the PS stays 0.1 s (it took 0.2 s when the PS instance of an
  // async replica straggled with its worker): 0.012 + 2 + 0.012 + 0.1.
  for (double t : r->step_times_s) CHECK(t == Approx(2.124).epsilon(1e-6));
}

TEST_CASE("ComputeSlowdown gives a shifted exponential tail and stragglers deterministically", "[sim][step_variation]") {
  WorkloadOptions w;
  w.compute_noise_mean = 0.2;
  w.seed = 11;
  const int n = 200000;
  double sum = 0;
  int beyond = 0;  // P(1 + E > 1 + M ln 100) = 1 / 100
  for (int i = 0; i < n; ++i) {
    const double f = ComputeSlowdown(w, i % 100, i / 100);
    REQUIRE(f >= 1);
    sum += f;
    beyond += f > 1 + 0.2 * std::log(100.0);
  }
  CHECK(sum / n == Approx(1.2).epsilon(0.01));
  CHECK(static_cast<double>(beyond) / n == Approx(0.01).margin(0.001));
  CHECK(ComputeSlowdown(w, 5, 7) == ComputeSlowdown(w, 5, 7));
  CHECK(ComputeSlowdown(w, -1, 7) == 1);  // a shared parameter-server instance

  WorkloadOptions s;  // stragglers alone: two values, the slow one with probability P
  s.straggler_probability = 0.06;
  s.straggler_slowdown = 1.3;
  int slow = 0;
  for (int i = 0; i < n; ++i) {
    const double f = ComputeSlowdown(s, i % 100, i / 100);
    REQUIRE((f == 1 || f == 1.3));
    slow += f == 1.3;
  }
  CHECK(static_cast<double>(slow) / n == Approx(0.06).margin(0.003));
  s.compute_noise_mean = 0.2;  // both: the factors multiply, the straggler draw is unchanged
  for (int i = 0; i < 1000; ++i) {
    WorkloadOptions only = s;
    only.compute_noise_mean = 0;
    const double straggle = ComputeSlowdown(only, i, 3);
    WorkloadOptions noise = w;
    noise.seed = s.seed;
    CHECK(ComputeSlowdown(s, i, 3) == Approx(straggle * ComputeSlowdown(noise, i, 3)));
  }
}

TEST_CASE("The parsers of --compute-noise and --start-spread refuse bad values naming the flag", "[sim][step_variation]") {
  WorkloadOptions w;
  CHECK(ParseComputeNoise("exp:0.25", &w).ok());
  CHECK(w.compute_noise_mean == 0.25);
  CHECK(ParseComputeNoise("off", &w).ok());
  CHECK(w.compute_noise_mean == 0);
  for (const char* bad :
       {"exp:-1", "exp:", "exp:nan", "exp:inf", "exp:1x", "gauss:1", "", "1", "exp:1e308"}) {
    const Status s = ParseComputeNoise(bad, &w);
    INFO(bad);
    REQUIRE(!s.ok());
    CHECK_THAT(s.message(), Catch::Contains("--compute-noise must be off or exp:M"));
    CHECK_THAT(s.message(), Catch::Contains(std::string("got '") + bad + "'"));
  }
  CHECK(ParseStartSpread("2.5", &w).ok());
  CHECK(w.start_spread_s == 2.5);
  CHECK(ParseStartSpread("1e6", &w).ok());
  for (const char* bad : {"-1", "abc", "inf", "", "1s", "1e308", "1000001"}) {
    const Status s = ParseStartSpread(bad, &w);
    INFO(bad);
    REQUIRE(!s.ok());
    CHECK_THAT(s.message(), Catch::Contains("--start-spread must be a number of seconds in [0, 1e+06]"));
    CHECK_THAT(s.message(), Catch::Contains(std::string("got '") + bad + "'"));
  }
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// `flowbench sim args`: exit status (-1 when killed by a signal), stdout and stderr.
int Sim(const std::string& args, const fb::test::TempDir& dir, std::string* err) {
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim " + args + " > " +
                          dir.file("out.txt") + " 2> " + dir.file("err.txt");
  const int status = std::system(cmd.c_str());
  *err = Slurp(dir.file("err.txt"));
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("flowbench sim takes --compute-noise and --start-spread and names them when bad", "[sim][step_variation][cli]") {
  fb::test::TempDir dir;
  std::string err;
  const std::string base = "--model lenet --batch 4 --platform star_4 --replicas 2 --ps 1 "
                           "--mode async --steps 2 ";
  REQUIRE(Sim(base + "--compute-noise exp:0.1 --start-spread 0.01 --seed 4 --metrics-json " +
                  dir.file("m.json"), dir, &err) == 0);
  const std::string metrics = Slurp(dir.file("m.json"));
  CHECK_THAT(metrics, Catch::Contains("\"compute_noise_mean\": 0.1"));
  CHECK_THAT(metrics, Catch::Contains("\"start_spread_s\": 0.01"));
  CHECK(Sim(base + "--compute-noise lognormal:1", dir, &err) == 1);
  CHECK_THAT(err, Catch::Contains("--compute-noise must be off or exp:M"));
  CHECK_THAT(err, Catch::Contains("got 'lognormal:1'"));
  CHECK(Sim(base + "--start-spread -2", dir, &err) == 1);
  CHECK_THAT(err, Catch::Contains("--start-spread must be a number of seconds in [0, 1e+06], got '-2'"));
}

}  // namespace
}  // namespace fb::sim
