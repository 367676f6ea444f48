// Hold-out validation of the profile cost model (issue 17), one case: LeNet profiled at batches
// 16 and 64 (1 thread, `flowbench profile` as a library, each configuration a fresh `flowbench
// benchmark` process as the command runs them), then batch 32 -- a configuration the profile never
// ran -- predicted by `flowbench sim --cost-model profile:FILE` and measured by a fresh `flowbench
// benchmark` process (median of 25 steps). The full table (LeNet and MLP, batches 16-256, 1 and 2
// threads) is analysis/sim_holdout.py's, in docs/simulator.md.
//
// Tagged [serial]: CTest runs it alone (cmake/FlowbenchTests.cmake). The bound is 30%, looser
// than the 10% median target, for a shared CI machine; an attempt that misses is
// repeated (profile and measurement both, at most three attempts) and every attempt is reported.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>
#include <fstream>

#include <nlohmann/json.hpp>

#include "experiments/training/benchmark.h"
#include "sim/benchmark_process.h"
#include "sim/profile.h"
#include "sim/profile_recorder.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb::sim {
namespace {

struct Attempt {
  double predicted_ms = 0, measured_ms = 0, load = 0;
};

Attempt RunAttempt(const fb::test::TempDir& dir, int attempt) {
  ProfileOptions o;
  o.models = {"lenet"};
  o.batch_sizes = {16, 64};
  o.threads = {1};
  o.timed_steps = 15;
  o.traced_steps = 8;
  o.scratch_dir = dir.path();
  o.benchmark_binary = std::string(FB_BINARY_DIR) + "/flowbench";
  auto profile = RecordProfile(o);
  INFO(profile.status().ToString());
  REQUIRE(profile.ok());
  const std::string path = dir.file("profile" + std::to_string(attempt) + ".h5");
  REQUIRE(WriteProfile(path, *profile).ok());

  const std::string metrics = dir.file("sim" + std::to_string(attempt) + ".json");
  const std::string cmd = std::string(FB_BINARY_DIR) +
                          "/flowbench sim --model lenet --batch 32 --platform this_machine.xml "
                          "--cost-model profile:" + path + " --metrics-json " + metrics + " > " +
                          dir.file("sim.txt") + " 2>&1";
  INFO(cmd);
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(metrics);
  Attempt a;
  a.predicted_ms = nlohmann::json::parse(in)["median_step_time_s"].get<double>() * 1e3;

  experiments::BenchmarkOptions b;
  b.model = "lenet";
  b.model_options.batch_size = 32;
  b.threads = 1;
  b.num_batches = 25;
  b.num_warmup_batches = 5;
  auto r = RunBenchmarkProcess(std::string(FB_BINARY_DIR) + "/flowbench", b,
                               dir.file("bench" + std::to_string(attempt) + ".json"));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  std::vector<double> ms = r->step_ms;
  std::sort(ms.begin(), ms.end());
  a.measured_ms = ms[ms.size() / 2];
  a.load = LoadAverage1m();
  return a;
}

TEST_CASE("Profile cost model predicts LeNet at an unprofiled batch size within 30%",
          "[serial][profile]") {
  fb::test::TempDir dir;
  double error = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const Attempt a = RunAttempt(dir, attempt);
    error = a.predicted_ms / a.measured_ms - 1;
    UNSCOPED_INFO("attempt " << attempt << ": predicted " << a.predicted_ms << " ms, measured "
                             << a.measured_ms << " ms, error " << error * 100 << "% (load "
                             << a.load << ")");
    if (std::abs(error) <= 0.30) break;
  }
  CHECK(std::abs(error) <= 0.30);
}

}  // namespace
}  // namespace fb::sim
