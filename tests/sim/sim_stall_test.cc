// Regression tests for simulator stalls found by `flowbench sweep` (docs/sweeps.md): replays that
// stopped with "simulation stalled" although every message they wait for is sent.
#include "sim/simulator.h"

#include "sim/sim_costs.h"
#include "sim/workload.h"

#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

// x (device 0, 0.1 s) -> y (device 1, 0.1 s) off the critical path; z (device 1, 1 s) on it.
// alap-recv defers x's _Send to 0.9 - 1 ms: device 0 has finished its step by then.
std::string OffCriticalTransferGraph() {
  return std::string(R"({"nodes": [
    {"name": "x", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "z", "op": "Const", "device": "/device:CPU:1", )" + test::kScalarConst + R"(},
    {"name": "y", "op": "Identity", "device": "/device:CPU:1", "inputs": ["x"], "attrs": {"T": {"type": "float"}}}
  ]})";
}

// Before the fix device 0's actor, its step done but its deferred _Send not yet issued, waited
// for step 0 of its group to finish (which needs that very send) and the replay deadlocked:
// "simulation stalled: group 0 finished 0 of 2 steps".
TEST_CASE("alap-recv over two steps issues a deferred send while waiting for the group", "[sim]") {
  auto g = MakeGraph(OffCriticalTransferGraph());
  Simulation sim;
  REQUIRE(sim.LoadPlatform(PlatformPath("two_hosts.xml")).ok());
  SimRunOptions opts;
  opts.workload.schedule = "alap-recv";
  opts.workload.steps = 2;
  auto r = sim.Run(*g, TableCosts({{"x", 0.1}, {"y", 0.1}, {"z", 1.0}}, {}), opts);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // Per step: z runs 0 to 1 s on device 1 (the _Recv arrives at 0.9 s, ALAP), then y 0.1 s.
  REQUIRE(r->step_times_s.size() == 2);
  for (double t : r->step_times_s) CHECK(t == Approx(1.1).epsilon(1e-6));
  CHECK(r->makespan_s == Approx(2.2).epsilon(1e-6));
  CHECK(r->transfers == 2);
}


// A synchronous parameter server gathers one gradient per replica of each variable. Before the
// fix its actor could complete its whole window of 16 posted receives in one pass (messages that
// arrived while it computed) without a gather becoming ready, then found no receive posted and
// reported "waits for data that is never sent" (`flowbench sim --model lenet --replicas 8
// --ps 2 --mode sync --stragglers 0.05:4`, and backup workers alike).
TEST_CASE("A sync parameter server completes more receives at once than its window", "[sim]") {
  auto graph = LoadSimGraph("", "lenet", 1);
  INFO(graph.status().ToString());
  REQUIRE(graph.ok());
  for (int backup : {0, 1}) {
    auto r = test::RunSimInChild([&]() -> StatusOr<SimResult> {
      ASSIGN_OR_RETURN(CostModelHandle costs,
                       MakeSimCosts(*graph->graph, graph->feed_shapes, "analytic"));
      Simulation sim;
      RETURN_IF_ERROR(sim.LoadPlatform(PlatformPath("cluster_100_ib.xml")));
      SimRunOptions opts;
      opts.workload.replicas = 8;
      opts.workload.ps = 2;
      opts.workload.mode = SyncMode::kSync;
      opts.workload.backup_workers = backup;
      opts.workload.steps = 4;
      opts.workload.seed = 1;
      opts.workload.straggler_probability = 0.05;
      opts.workload.straggler_slowdown = 4;
      return sim.Run(*graph->graph, costs.costs, opts);
    });
    INFO("backup workers " << backup << ": " << r.status().ToString());
    REQUIRE(r.ok());
    CHECK(r->step_times_s.size() == 4);
  }
}

}  // namespace
}  // namespace fb::sim
