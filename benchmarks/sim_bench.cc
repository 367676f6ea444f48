// Simulator speed (issue 6): simulated node executions per wall-clock second (target >= 1e6) and
// one synchronous data-parallel step of a 25,000-node graph (sim/synthetic_graph.h) on 200
// replicas with 10 parameter servers on the 1,000-node InfiniBand fat tree (target < 60 s wall,
// < 8 GiB). Costs come from the shared cost model in analytic mode (sim/sim_costs.h).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "sim/sim_costs.h"
#include "sim/simulator.h"
#include "sim/synthetic_graph.h"

namespace fb::sim {
namespace {

std::string Platform(const std::string& name) {
  auto path = ResolvePlatformPath(name);
  FB_CHECK(path.ok()) << path.status();
  return *path;
}

SimResult RunOnce(const Graph& g, const SimCosts& costs, const std::string& platform,
                  const SimRunOptions& options) {
  Simulation sim;
  FB_CHECK(sim.LoadPlatform(Platform(platform)).ok());
  auto r = sim.Run(g, costs, options);
  FB_CHECK(r.ok()) << r.status();
  return std::move(*r);
}

struct Model {
  std::unique_ptr<Graph> graph;
  CostModelHandle costs;
};

Model SyntheticModel() {
  auto g = Graph::FromGraphDef(SyntheticTrainingGraph({}));
  FB_CHECK(g.ok()) << g.status();
  auto costs = MakeSimCosts(**g, {}, "analytic");
  FB_CHECK(costs.ok()) << costs.status();
  return Model{std::move(*g), std::move(*costs)};
}

// One device replays `steps` steps of the 25,000-node graph: pure executor bookkeeping.
void BM_SimNodeExecutions(benchmark::State& state) {
  Model m = SyntheticModel();
  SimRunOptions o;
  o.workload.steps = static_cast<int>(state.range(0));
  int64_t nodes = 0;
  for (auto _ : state) nodes += RunOnce(*m.graph, m.costs.costs, "this_machine.xml", o).node_executions;
  state.counters["node_executions_per_s"] =
      benchmark::Counter(static_cast<double>(nodes), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SimNodeExecutions)->Arg(20)->UseRealTime()->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_SimSyncStep200Replicas(benchmark::State& state) {
  Model m = SyntheticModel();
  SimRunOptions o;
  o.workload.replicas = 200;
  o.workload.ps = 10;
  o.workload.steps = 1;
  SimResult r;
  for (auto _ : state) r = RunOnce(*m.graph, m.costs.costs, "cluster_1000_ib.xml", o);
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  state.counters["peak_rss_gib"] = static_cast<double>(u.ru_maxrss) / (1 << 20);
  state.counters["node_executions"] = static_cast<double>(r.node_executions);
  state.counters["transfers"] = static_cast<double>(r.transfers);
  state.counters["predicted_step_s"] = r.MedianStepTime();
}
BENCHMARK(BM_SimSyncStep200Replicas)->UseRealTime()->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace fb::sim
