// While loops in the replay (sim/loop_replay.h): a loop replayed for N iterations costs N times
// its body plus its overhead (the predicate N + 1 times, Enter and Exit once), with the count
// from --loop-iterations or from a trace's executions per step; a loop without a count and a bad
// --loop-iterations are refused with messages naming the frame or the flag.
#include "sim/loop_replay.h"

#include "engine/client/array_ops.h"
#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/trace/trace_writer.h"
#include "sim/simulator.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

// i = 0; while (i < n) i = i + 1, every node on one device.
std::unique_ptr<Graph> CountingLoop() {
  Scope root = Scope::NewRootScope().WithDevice("/device:CPU:0");
  Output n = ops::Const(root.WithOpName("n"), static_cast<int32_t>(5));
  ops::WhileLoopNodes nodes;
  auto out = ops::WhileLoop(
      root, {ops::Const(root.WithOpName("i0"), static_cast<int32_t>(0))},
      [&](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], n); },
      [](const Scope& s, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(s, v[0], ops::Const(s, static_cast<int32_t>(1)))};
      },
      {}, &nodes);
  ops::Identity(root.WithOpName("result"), out[0]);
  REQUIRE(root.ok());
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  return std::move(*g);
}

// Costs by op type: the body's Add 1 s, the predicate's Less 0.1 s, Enter 0.01 s, Exit 0.02 s.
SimCosts LoopCosts() {
  SimCosts c;
  c.compute_s = [](const Node& n, const DeviceDesc&) {
    if (n.op() == "Add") return 1.0;
    if (n.op() == "Less") return 0.1;
    if (n.op() == "Enter") return 0.01;
    if (n.op() == "Exit") return 0.02;
    return 0.0;
  };
  c.output_bytes = [](const Node&, int) -> int64_t { return 4; };
  return c;
}

StatusOr<SimResult> RunLoop(const LoopCounts& counts) {
  return test::RunSimInChild([&]() -> StatusOr<SimResult> {
    auto g = CountingLoop();
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(test::PlatformPath("two_hosts.xml")));
    SimRunOptions o;
    o.loops = counts;
    return sim.Run(*g, LoopCosts(), o);
  });
}

int CountOps(const Graph& g, const std::string& op) {
  int k = 0;
  for (const Node* n : g.nodes()) k += n->op() == op;
  return k;
}

TEST_CASE("A loop replayed for N iterations costs N times its body plus its overhead", "[sim][loop]") {
  auto g = CountingLoop();
  REQUIRE(CountOps(*g, "Add") == 1);
  REQUIRE(CountOps(*g, "Less") == 1);
  REQUIRE(CountOps(*g, "Exit") == 1);
  const int enters = CountOps(*g, "Enter");  // i0, and n and 1 captured into the frame
  for (int64_t iterations : {0, 1, 7}) {
    INFO("iterations " << iterations);
    LoopCounts counts;
    counts.iterations = iterations;
    auto r = RunLoop(counts);
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    REQUIRE(r->step_times_s.size() == 1);
    const double n = static_cast<double>(iterations);
    CHECK(r->step_times_s[0] == Approx(n * 1.0 + (n + 1) * 0.1 + enters * 0.01 + 0.02).epsilon(1e-9));
  }
}

TEST_CASE("A loop's iteration count comes from a trace's NextIteration executions", "[sim][loop]") {
  auto g = CountingLoop();
  std::string next;
  for (const Node* n : g->nodes())
    if (n->op() == "NextIteration") next = n->name();
  LoopCounts counts;
  counts.executions_per_step[next] = 3;
  counts.iterations = 100;  // the trace wins
  auto r = RunLoop(counts);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->step_times_s[0] ==
        Approx(3 * 1.0 + 4 * 0.1 + CountOps(*g, "Enter") * 0.01 + 0.02).epsilon(1e-9));
}

TEST_CASE("Executions per step are counted from a trace's compute events", "[sim][loop]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("loop.h5");
  {
    auto w = TraceWriter::Create(path, DefaultTraceMetadata(TraceMode::kReal, 0, nullptr));
    REQUIRE(w.ok());
    // Two steps: "body" runs 3 and 5 times, "once" once per step; a send is not counted.
    for (int64_t step = 0; step < 2; ++step) {
      for (int k = 0; k < (step == 0 ? 3 : 5); ++k)
        REQUIRE((*w)->AddEvent({EventKind::kCompute, 0, "/job:localhost/replica:0/task:0/device:CPU:0",
                                0, step, "body", "Add", 10 * k, 10 * k + 5, 4, ""}).ok());
      REQUIRE((*w)->AddEvent({EventKind::kCompute, 0, "/job:localhost/replica:0/task:0/device:CPU:0",
                              0, step, "once", "Less", 100, 105, 1, ""}).ok());
      REQUIRE((*w)->AddEvent({EventKind::kSend, 0, "/job:localhost/replica:0/task:0/device:CPU:0",
                              0, step, "once", "_Send", 100, 105, 1, ""}).ok());
    }
    REQUIRE((*w)->Close().ok());
  }
  auto counts = NodeExecutionsFromTrace(path);
  INFO(counts.status().ToString());
  REQUIRE(counts.ok());
  CHECK(counts->at("body") == Approx(4));
  CHECK(counts->at("once") == Approx(1));
  auto missing = NodeExecutionsFromTrace(dir.file("nope.h5"));
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Catch::Contains("nope.h5"));
}

TEST_CASE("A loop without an iteration count and a negative --loop-iterations are refused", "[sim][loop]") {
  auto r = RunLoop(LoopCounts{});
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("while loop frame"));
  CHECK_THAT(r.status().message(), Catch::Contains("NextIteration node"));
  CHECK_THAT(r.status().message(), Catch::Contains("--loop-iterations"));
  auto bad = ParseLoopIterations("-3");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("--loop-iterations must be an integer >= 0, got '-3'"));
  CHECK_FALSE(ParseLoopIterations("4x").ok());
  CHECK_FALSE(ParseLoopIterations("99999999999999999999").ok());
  CHECK(*ParseLoopIterations("") == -1);
  CHECK(*ParseLoopIterations("12") == 12);
}

}  // namespace
}  // namespace fb::sim
