// Placers on synthetic layered graphs (experiments/models/synthetic_graph.h) and on the training graphs
// of the built-in models (MLP, LeNet-5 at batch 64) over 4 CPU devices with default descriptions: the time each placer takes (the benchmark's time) and, as counters, the
// cost model's predicted step time and the bytes crossing devices of its placement. The
// whitepaper 3.2.1 greedy placer must handle a 30,000-node graph (300 layers x 100) in < 5 s.
//   build/flowbench-bench --benchmark_filter=Placer
#include <benchmark/benchmark.h>

#include "engine/placement/device_config.h"
#include "engine/placement/placement_report.h"
#include "experiments/models/model_graph.h"
#include "experiments/models/synthetic_graph.h"

namespace fb {
namespace {

const char* const kPlacers[] = {"single", "round_robin", "random", "greedy", "heft"};

// Times `placer` on `g` and reports the prediction of its placement as counters.
void RunPlacer(benchmark::State& state, const Graph& g, const std::string& placer,
               const std::string& graph_label, CostModelOptions options = {}) {
  auto cost = CostModel::Create(g, LocalDevices("CPU", 4), LinkSet(), std::move(options));
  FB_CHECK(cost.ok()) << cost.status();
  PlacerRun run;
  for (auto _ : state) {
    auto r = EvaluatePlacer(g, *cost, placer);
    FB_CHECK(r.ok()) << r.status();
    run = std::move(*r);
  }
  state.SetLabel(placer + " " + graph_label + " " + std::to_string(g.num_nodes()) + " nodes");
  state.counters["placer_s"] = run.placer_seconds;
  state.counters["pred_step_ms"] = run.prediction.step_ns * 1e-6;
  state.counters["MiB_crossing"] = static_cast<double>(run.prediction.bytes_crossing) / (1 << 20);
}

void BM_Placer(benchmark::State& state) {
  SyntheticGraphOptions o;
  o.layers = static_cast<int>(state.range(1));
  o.width = 100;
  auto g = BuildLayeredGraph(o);
  FB_CHECK(g.ok()) << g.status();
  RunPlacer(state, **g, kPlacers[state.range(0)], "synthetic");
}
BENCHMARK(BM_Placer)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {30, 300}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

const char* const kModels[] = {"mlp", "lenet"};

void BM_PlacerModel(benchmark::State& state) {
  const std::string model = kModels[state.range(1)];
  auto m = experiments::BuildModelGraph(model, 64);
  FB_CHECK(m.ok()) << m.status();
  CostModelOptions options;
  options.feed_shapes = m->feed_shapes;
  RunPlacer(state, *m->graph, kPlacers[state.range(0)], model, std::move(options));
}
BENCHMARK(BM_PlacerModel)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->UseRealTime();

}  // namespace
}  // namespace fb
