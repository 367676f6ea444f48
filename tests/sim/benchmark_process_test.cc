// sim/benchmark_process.h: one `flowbench benchmark` configuration in a fresh process, for
// `flowbench profile` (each configuration measured as users and the hold-out measure it).
#include <catch2/catch.hpp>

#include "datasets/dataset.h"
#include "sim/benchmark_process.h"
#include "sim/profile_recorder.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb::sim {
namespace {

using Catch::Matchers::Contains;

const std::string kFlowbench = std::string(FB_BINARY_DIR) + "/flowbench";

experiments::BenchmarkOptions SmallMlp() {
  experiments::BenchmarkOptions b;
  b.model = "mlp";
  b.model_options.batch_size = 4;
  b.threads = 1;
  b.num_batches = 3;
  b.num_warmup_batches = 1;
  return b;
}

TEST_CASE("A benchmark process reports every timed step and its devices", "[sim][profile]") {
  fb::test::TempDir dir;
  experiments::BenchmarkOptions b = SmallMlp();
  b.trace_path = dir.file("t.h5");
  b.trace_steps = 2;
  auto r = RunBenchmarkProcess(kFlowbench, b, dir.file("m.json"));
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->step_ms.size() == 3);
  for (double ms : r->step_ms) CHECK(ms > 0);
  REQUIRE(r->devices.size() == 1);
  CHECK_THAT(r->devices[0], Contains("CPU:0"));
  CHECK(r->model == "mlp");
  CHECK(r->batch_size == 4);
}

TEST_CASE("A benchmark process that fails is reported with its command and output",
          "[sim][profile]") {
  fb::test::TempDir dir;
  experiments::BenchmarkOptions b = SmallMlp();
  b.model = "no_such_model";
  auto r = RunBenchmarkProcess(kFlowbench, b, dir.file("m.json"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInternal);
  CHECK_THAT(r.status().message(), Contains("--model no_such_model") &&
                                       Contains("exited with status") &&
                                       Contains("no_such_model"));
  auto missing = RunBenchmarkProcess(dir.file("no-such-binary"), SmallMlp(), dir.file("m.json"));
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Contains("no-such-binary") && Contains("status 127"));
  b = SmallMlp();
  b.dataset = std::make_shared<const datasets::Dataset>();
  auto with_data = RunBenchmarkProcess(kFlowbench, b, dir.file("m.json"));
  REQUIRE_FALSE(with_data.ok());
  CHECK(with_data.status().code() == Code::kInvalidArgument);
}

TEST_CASE("A profile of fresh benchmark processes has every configuration's points and steps",
          "[sim][profile]") {
  fb::test::TempDir dir;
  ProfileOptions o;
  o.models = {"mlp"};
  o.batch_sizes = {4, 8};
  o.threads = {1};
  o.timed_steps = 3;
  o.traced_steps = 2;
  o.warmup_steps = 1;
  o.scratch_dir = dir.path();
  o.benchmark_binary = kFlowbench;
  std::vector<std::string> lines;
  auto p = RecordProfile(o, [&lines](const std::string& l) { lines.push_back(l); });
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  REQUIRE(p->steps.size() == 2);
  for (const ProfileStep& s : p->steps) {
    CHECK(s.steps == 3);
    CHECK(s.median_step_ns > 0);
    CHECK(s.node_sum_ns > 0);
    CHECK(s.nodes > 10);
  }
  CHECK(p->points.size() == 2 * static_cast<size_t>(p->steps[0].nodes));
  CHECK_THAT(lines.front(), Contains("mlp batch 4 threads 1: median step"));
}

}  // namespace
}  // namespace fb::sim
