#pragma once
// Where the simulator's numbers come from: the graph (a GraphDef file, a model builder, or the
// synthetic generator) and the node costs, from the shared cost model of whitepaper 3.2.1
// (engine/placement/cost_model.h), the same one the placers use:
//   "analytic"            roofline estimate per op and device (FLOPs, bytes, launch overhead)
//   "measured:TRACE.h5"   per-node mean durations of an earlier real run (engine/trace), by node
//                         name and device type, over its typical steps (TypicalSteps: step
//                         times between the 40th and 60th percentiles); nodes missing from the
//                         trace fall back to the analytic estimate; plus the run's mean transfer
//                         deliveries and control-plane latencies over the same steps
//                         (sim/measured_latencies.h). Predicts the median step. Means, since
//                         they compose: a node's durations within a step are correlated and
//                         skewed, and the sum of per-node medians fell 20% short of the median
//                         step of a 2-rank LeNet run.
//   "measured-mean:TRACE.h5"  the same over every step (predicts the mean step, preempted
//                         executions of a shared machine included).
// Transfer bytes are the cost model's output sizes (whole-graph shape refinement).
#include <map>
#include <memory>
#include <string>

#include "engine/placement/cost_model.h"
#include "sim/program.h"

namespace fb::sim {

struct SimGraph {
  std::unique_ptr<Graph> graph;
  std::map<std::string, TensorShape> feed_shapes;  // Placeholders' shapes (batch filled in)
  // --model NAME of experiments/models: the unpruned client graph (ModelGraph::client_graph);
  // null for graph files and synthetic models.
  std::unique_ptr<Graph> client_graph;
};

// The graph of `--graph PATH` or `--model NAME` (exactly one non-empty); a graph file's
// Placeholders get their unknown dimensions set to `batch` in feed_shapes. Models:
// "synthetic[:LAYERS:ELEMENTWISE]" (sim/synthetic_graph.h) and the builders of
// experiments/models/models.h, whose step is that of `flowbench benchmark --mode model_mode`
// ("train", "forward-backward" or "forward"; experiments/models/model_graph.h). Errors: those of
// ReadGraphDefFile / Graph validation (naming the file or node); NotFound naming an unknown
// model; InvalidArgument for another model_mode, or one other than "train" with a synthetic model.
StatusOr<SimGraph> LoadSimGraph(const std::string& graph_path, const std::string& model,
                                int batch, const std::string& model_mode = "train");

struct CostModelHandle {
  SimCosts costs;
  std::string description;  // "analytic" or "measured:PATH (N nodes measured)"
  std::shared_ptr<const CostModel> model;
  std::shared_ptr<const MeasuredCosts> measured;
  // Measured mode: the real run's step times (end - start of its traced steps, seconds), what
  // `flowbench sim` reports the prediction against.
  std::vector<double> measured_step_s;
};

// Builds SimCosts for nodes of `g` or of any clone of it (nodes are matched by name). `spec` is
// "analytic", "measured:TRACE.h5" or "measured-mean:TRACE.h5". Errors: InvalidArgument for another spec; those of
// CostModel::Create (naming the node) and TraceReader::Open (naming the file).
// `model`: the registered model `g` was built from ("" for a graph file), which a profile cost
// model reads by name when the profile holds it (MakeProfileSimCosts).
StatusOr<CostModelHandle> MakeSimCosts(const Graph& g,
                                       const std::map<std::string, TensorShape>& feed_shapes,
                                       const std::string& spec, const std::string& model = "");

}  // namespace fb::sim
