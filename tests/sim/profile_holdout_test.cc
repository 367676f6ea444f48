// Hold-out validation of the profile cost model (issue 17), one case per category of the issue's
// validation (the full tables are analysis/sim_holdout.py's, analysis/sim_dist_holdout.py's and
// the placement sweep's, in docs/simulator.md):
// - batch size: LeNet profiled at batches 16 and 64 (1 thread, `flowbench profile` as a library,
//   each configuration a fresh `flowbench benchmark` process as the command runs them), then
//   batch 32 -- a configuration the profile never ran -- predicted by `flowbench sim
//   --cost-model profile:FILE` and measured by a fresh `flowbench benchmark` process (median of
//   25 steps);
// - dist-train: the same one-process profile predicts a 2-rank synchronous `dist-train` (1 PS, 1
//   worker, batch 32) on `sim-platform mpi-node:...`, measured under mpirun;
// - placement: LeNet on 4 CPU devices of one process, placed single, round_robin and
//   round_robin with compression: the three predicted from a profile of one process (batch 64,
//   one thread per device) must rank as `flowbench train` runs them (`flowbench sweep --validate`,
//   Kendall's tau 1).
//
// Tagged [serial]: CTest runs them alone (cmake/FlowbenchTests.cmake). The error bound is 30%,
// looser than the 10% median target, for a shared CI machine; an attempt that misses is
// repeated (profile and measurement both, at most three attempts) and every attempt is reported.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/training/benchmark.h"
#include "sim/benchmark_process.h"
#include "sim/profile.h"
#include "sim/profile_recorder.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb::sim {
namespace {

const std::string kFlowbench = std::string(FB_BINARY_DIR) + "/flowbench";

struct Attempt {
  double predicted_ms = 0, measured_ms = 0, load = 0;
};

// A LeNet profile of one thread at `batches`, written to the returned path.
std::string ProfileLeNet(const fb::test::TempDir& dir, const std::string& tag,
                         std::vector<int64_t> batches) {
  ProfileOptions o;
  o.models = {"lenet"};
  o.batch_sizes = std::move(batches);
  o.threads = {1};
  o.timed_steps = 15;
  o.traced_steps = 8;
  o.scratch_dir = dir.path();
  o.benchmark_binary = kFlowbench;
  auto profile = RecordProfile(o);
  INFO(profile.status().ToString());
  REQUIRE(profile.ok());
  const std::string path = dir.file("profile" + tag + ".h5");
  REQUIRE(WriteProfile(path, *profile).ok());
  return path;
}

// Runs `command` (output to a file of `dir`) and requires success.
void Run(const fb::test::TempDir& dir, const std::string& command, const std::string& tag) {
  const std::string line = command + " > " + dir.file("out" + tag + ".txt") + " 2>&1";
  INFO(line);
  REQUIRE(std::system(line.c_str()) == 0);
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// `flowbench sim ARGS`: the predicted median step, ms.
double SimulatedMs(const fb::test::TempDir& dir, const std::string& args, const std::string& tag) {
  const std::string metrics = dir.file("sim" + tag + ".json");
  Run(dir, kFlowbench + " sim " + args + " --metrics-json " + metrics, tag);
  return ReadJson(metrics)["median_step_time_s"].get<double>() * 1e3;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Attempt BatchAttempt(const fb::test::TempDir& dir, int attempt) {
  const std::string tag = "batch" + std::to_string(attempt);
  const std::string profile = ProfileLeNet(dir, tag, {16, 64});
  Attempt a;
  a.predicted_ms = SimulatedMs(dir,
                               "--model lenet --batch 32 --platform this_machine.xml "
                               "--cost-model profile:" + profile,
                               tag);
  experiments::BenchmarkOptions b;
  b.model = "lenet";
  b.model_options.batch_size = 32;
  b.threads = 1;
  b.num_batches = 25;
  b.num_warmup_batches = 5;
  auto r = RunBenchmarkProcess(kFlowbench, b, dir.file("bench" + tag + ".json"));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  a.measured_ms = Median(r->step_ms);
  a.load = LoadAverage1m();
  return a;
}

// Up to three attempts until one is within 30%; every attempt reported.
void CheckWithinThirtyPercent(const std::function<Attempt(int)>& run_attempt) {
  double error = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const Attempt a = run_attempt(attempt);
    error = a.predicted_ms / a.measured_ms - 1;
    UNSCOPED_INFO("attempt " << attempt << ": predicted " << a.predicted_ms << " ms, measured "
                             << a.measured_ms << " ms, error " << error * 100 << "% (load "
                             << a.load << ")");
    if (std::abs(error) <= 0.30) break;
  }
  CHECK(std::abs(error) <= 0.30);
}

TEST_CASE("Profile cost model predicts LeNet at an unprofiled batch size within 30%",
          "[serial][profile]") {
  fb::test::TempDir dir;
  CheckWithinThirtyPercent([&](int attempt) { return BatchAttempt(dir, attempt); });
}

#ifdef FB_MPIRUN_LINE
Attempt DistAttempt(const fb::test::TempDir& dir, int attempt) {
  const std::string tag = "dist" + std::to_string(attempt);
  const std::string profile = ProfileLeNet(dir, tag, {16, 64});
  const std::string platform = dir.file("node" + tag + ".xml");
  Run(dir, kFlowbench + " sim-platform mpi-node:ps=1,worker=1 " + platform, tag + "p");
  Attempt a;
  a.predicted_ms = SimulatedMs(dir,
                               "--model lenet --batch 32 --platform " + platform +
                                   " --ranks 1 --ps 1 --mode sync --steps 20 --cost-model "
                                   "profile:" + profile + ",threads=1",
                               tag);
  const std::string metrics = dir.file("dist" + tag + ".json");
  Run(dir,
      std::string(FB_MPIRUN_LINE) + " -np 2 " + kFlowbench +
          " dist-train --model lenet --mode sync --batch 32 --lr 0.05 --steps 70 --metrics-json " +
          metrics,
      tag + "m");
  std::vector<double> steps = ReadJson(metrics)["step_s"].get<std::vector<double>>();
  REQUIRE(steps.size() > 10);
  steps.erase(steps.begin(), steps.begin() + 10);  // start-up
  a.measured_ms = Median(steps) * 1e3;
  a.load = LoadAverage1m();
  return a;
}

TEST_CASE("Profile cost model predicts a 2-rank sync dist-train step from one process within 30%",
          "[serial][profile][mpi]") {
  fb::test::TempDir dir;
  CheckWithinThirtyPercent([&](int attempt) { return DistAttempt(dir, attempt); });
}
#endif

// The placement sweep's spec, predicted from `profile` on this machine's 4-CPU platform.
std::string PlacementSpec(const std::string& profile) {
  return "name: placement_order\nmode: sim\nsim_command: sim\nreal_command: train\n"
         "repetitions: 1\ntimeout_s: 300\nfixed:\n  model: lenet\n  batch-size: 64\n"
         "  sim.steps: 3\n  sim.platform: " FB_SOURCE_DIR
         "/experiments/sweeps/platforms/this_machine_cpu4.xml\n"
         "  sim.cost-model: profile:" + profile + ",threads=1\n"
         "  real.devices: cpu:4\n  real.dataset: synthetic\n  real.steps: 30\n"
         "  real.threads: 2\nzip:\n  - placer: [single, round_robin, round_robin]\n"
         "    compression: [off, off, on]\n";
}

TEST_CASE("Profile cost model ranks three placements of LeNet on 4 CPU devices as they run",
          "[serial][profile][placement]") {
  fb::test::TempDir dir;
  double tau = 0;
  for (int attempt = 0; attempt < 3 && tau < 1; ++attempt) {
    const std::string tag = "placement" + std::to_string(attempt);
    const std::string spec = dir.file(tag + ".yaml");
    std::ofstream(spec) << PlacementSpec(ProfileLeNet(dir, tag, {64}));
    const std::string out = dir.file(tag);
    Run(dir, kFlowbench + " sweep " + spec + " --out " + out + " --validate 3", tag);
    const nlohmann::json v = ReadJson(out + "/validation.json");
    REQUIRE(v["pairs"] == 3);
    tau = v["kendall_tau"].get<double>();
    UNSCOPED_INFO("attempt " << attempt << ": Kendall tau " << tau << ", median |error| "
                             << v["median_abs_relative_error"].get<double>() * 100 << "% (load "
                             << LoadAverage1m() << ")");
  }
  CHECK(tau == 1);
}

}  // namespace
}  // namespace fb::sim
