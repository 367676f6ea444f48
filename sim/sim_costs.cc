#include "sim/sim_costs.h"

#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_summary.h"
#include "experiments/models/model_graph.h"
#include "experiments/models/models.h"
#include "sim/measured_latencies.h"
#include "sim/profile_sim_costs.h"
#include "sim/synthetic_graph.h"

namespace fb::sim {
namespace {

// The largest synthetic graph --model builds: 40 times the default one (24,903 nodes); a step of
// it is placed and simulated in about a minute. synthetic:1000000:1000000 (10^12 nodes) ran
// until the machine's memory ran out.
constexpr long long kMaxSyntheticNodes = 1'000'000;

StatusOr<SimGraph> SyntheticModel(const std::string& model, int batch) {
  SyntheticGraphSpec spec;
  spec.batch = batch;
  if (model != "synthetic") {
    long long layers = 0, elementwise = 0;
    char tail = 0;
    if (std::sscanf(model.c_str(), "synthetic:%9lld:%9lld%c", &layers, &elementwise, &tail) != 2 ||
        layers < 1 || elementwise < 0)
      return InvalidArgument("model '", model, "': expected synthetic or synthetic:LAYERS:ELEMENTWISE");
    const long long nodes = layers * (2 * elementwise + 5) + 3;  // SyntheticGraphSpec
    if (nodes > kMaxSyntheticNodes)
      return InvalidArgument("model '", model, "': ", nodes, " nodes (LAYERS x (2 x ELEMENTWISE + ",
                             "5) + 3), more than the ", kMaxSyntheticNodes,
                             " a synthetic graph may have");
    spec.layers = static_cast<int>(layers);
    spec.elementwise = static_cast<int>(elementwise);
  }
  SimGraph out;
  ASSIGN_OR_RETURN(out.graph, Graph::FromGraphDef(SyntheticTrainingGraph(spec)));
  return out;
}

// A model of experiments/models/models.h with Placeholder inputs, `batch` examples per step.
StatusOr<SimGraph> RegisteredModel(const std::string& model, int batch, const std::string& mode) {
  auto built = experiments::BuildModelGraph(model, batch, mode);
  if (built.status().code() == Code::kNotFound && !experiments::LookupDefaults(model).ok())
    return NotFound(built.status().message(), "; --model also takes synthetic and ",
                    "synthetic:LAYERS:ELEMENTWISE");
  ASSIGN_OR_RETURN(experiments::ModelGraph m, std::move(built));
  SimGraph out;
  out.graph = std::move(m.graph);
  out.feed_shapes = std::move(m.feed_shapes);
  out.client_graph = std::move(m.client_graph);
  return out;
}

double Lookup(const std::map<std::string, double>& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? -1 : it->second;
}

// A trace without node events, or whose nodes are none of the graph's, replays nothing: every
// node fell back to the analytic estimate ("measured:T (0 nodes)") and the prediction was
// compared with the trace's steps of another run.
Status CheckTraceMeasuresGraph(const Trace& trace, const Graph& g) {
  size_t compute = 0;
  for (const EventRecord& e : trace.events) {
    if (e.kind != static_cast<int32_t>(EventKind::kCompute)) continue;
    ++compute;
    if (g.FindNode(trace.str(e.node))) return Status::OK();
  }
  if (compute == 0)
    return FailedPrecondition("trace '", trace.path, "' holds no node executions (traced with ",
                              "--trace-steps 0?): nothing to replay. Trace some steps, or ",
                              "predict with --cost-model profile:FILE or analytic");
  return FailedPrecondition("trace '", trace.path, "' measured none of the ", g.num_nodes(),
                            " nodes of the simulated graph (", compute,
                            " node executions of another graph): simulate the model it traced");
}

}  // namespace

StatusOr<SimGraph> LoadSimGraph(const std::string& graph_path, const std::string& model,
                                int batch, const std::string& model_mode) {
  if (graph_path.empty() == model.empty())
    return InvalidArgument("give exactly one of --graph and --model");
  if (!graph_path.empty()) {
    ASSIGN_OR_RETURN(GraphDef def, ReadGraphDefFile(graph_path));
    SimGraph out;
    auto g = Graph::FromGraphDef(def);
    if (!g.ok()) return g.status().WithPrefix("graph file '" + graph_path + "': ");
    out.graph = std::move(*g);
    out.feed_shapes = experiments::BatchedPlaceholderShapes(*out.graph, batch);
    return out;
  }
  if (model.rfind("synthetic", 0) == 0) {
    if (model_mode != "train")
      return InvalidArgument("--model ", model, ": a synthetic graph has train steps only, not ",
                             model_mode);
    return SyntheticModel(model, batch);
  }
  return RegisteredModel(model, batch, model_mode);
}

StatusOr<CostModelHandle> MakeSimCosts(const Graph& g,
                                       const std::map<std::string, TensorShape>& feed_shapes,
                                       const std::string& spec, const std::string& model_name) {
  if (spec.rfind("profile:", 0) == 0)
    return MakeProfileSimCosts(g, feed_shapes, spec, model_name);
  CostModelHandle h;
  CostModelOptions options;
  options.feed_shapes = feed_shapes;
  h.description = spec;
  const bool mean = spec.rfind("measured-mean:", 0) == 0;
  if (mean || spec.rfind("measured:", 0) == 0) {
    const std::string path = spec.substr(spec.find(':') + 1);
    if (path.empty())
      return InvalidArgument("--cost-model '", spec, "': expected ", spec, "TRACE.h5");
    ASSIGN_OR_RETURN(Trace trace, TraceReader::Open(path));
    // A trace answers for the configuration it ran only (issue 17: a batch-64 trace predicted
    // the same step for every batch and reported its own steps as the "measurement").
    ASSIGN_OR_RETURN(CostModel shapes, CostModel::Create(g, DeviceSet{DeviceDesc{}}, {}, options));
    RETURN_IF_ERROR(CheckTraceConfiguration(trace, g, shapes));
    RETURN_IF_ERROR(CheckTraceMeasuresGraph(trace, g));
    // Means compose: the sum of per-node means over a set of steps is the mean of their sums.
    // "measured:" averages over the typical steps (predicting the median step), "measured-mean:"
    // over every step (predicting the mean step).
    const std::set<int64_t> typical = TypicalTracedSteps(trace);
    const std::set<int64_t>* steps = mean ? nullptr : &typical;
    auto measured = std::make_shared<MeasuredCosts>(
        MeasuredCosts::FromTrace(trace, MeasuredCosts::Statistic::kMean, steps));
    h.description = spec + " (" + std::to_string(measured->size()) + " nodes)";
    h.measured = measured;
    for (const StepRecord& r : trace.steps)
      h.measured_step_s.push_back(static_cast<double>(r.end_ns - r.start_ns) * 1e-9);
    auto lat = std::make_shared<const MeasuredLatencies>(MeasureLatencies(trace, steps));
    h.costs.transfer_s = [lat](const std::string& send) { return Lookup(lat->transfer_s, send); };
    h.costs.dispatch_s = [lat](const std::string& d) { return Lookup(lat->dispatch_s, d); };
    h.costs.completion_s = [lat](const std::string& d) { return Lookup(lat->completion_s, d); };
  } else if (spec != "analytic") {
    return InvalidArgument("--cost-model must be analytic, measured:TRACE.h5, "
                           "measured-mean:TRACE.h5 or profile:FILE[,threads=N], got '", spec, "'");
  }
  ASSIGN_OR_RETURN(CostModel model, CostModel::Create(g, DeviceSet{DeviceDesc{}}, {}, options));
  auto cm = std::make_shared<const CostModel>(std::move(model));
  h.model = cm;
  const Graph* graph = &g;
  auto measured = h.measured;
  h.costs.compute_s = [cm, graph, measured](const Node& n, const DeviceDesc& d) {
    if (measured) {
      const double ns = measured->DurationNs(n.name(), d.type);
      if (ns >= 0) return ns * 1e-9;
    }
    const Node* orig = graph->FindNode(n.name());
    return orig ? AnalyticComputeNs(cm->Work(*orig), d) * 1e-9 : 0.0;
  };
  h.costs.output_bytes = [cm, graph](const Node& n, int port) -> int64_t {
    const Node* orig = graph->FindNode(n.name());
    return orig ? cm->OutputBytes(*orig, port) : 0;
  };
  return h;
}

}  // namespace fb::sim
