#include "experiments/models/model_graph.h"

#include "engine/runtime/subgraph.h"
#include "experiments/models/models.h"

namespace fb::experiments {

StatusOr<ModelGraph> BuildModelGraph(const std::string& model, int64_t batch) {
  return BuildModelGraph(model, batch, "train");
}

StatusOr<ModelGraph> BuildModelGraph(const std::string& model, int64_t batch,
                                     const std::string& mode) {
  if (mode != "train" && mode != "forward-backward" && mode != "forward")
    return InvalidArgument("model graph mode '", mode,
                           "': expected forward, forward-backward or train");
  if (batch < 1) return InvalidArgument("batch size must be >= 1, got ", batch);
  // No dataset dictates the input: the model's own image shape and classes (ModelDefaults).
  ASSIGN_OR_RETURN(ModelOptions options, WithModelDefaults(model, ModelOptions{}));
  options.batch_size = batch;
  ASSIGN_OR_RETURN(Model m, BuildModel(model, options));
  ModelGraph out;
  ASSIGN_OR_RETURN(out.graph, Graph::FromGraphDef(m.scope.ToGraphDef()));
  // One step: what the benchmark's fetches and targets need (no initializers, no metrics).
  std::vector<std::string> fetched = {m.train_op, m.loss};
  if (mode == "forward") fetched = {m.logits};
  if (mode == "forward-backward") {
    fetched = m.gradients;
    fetched.push_back(m.loss);
  }
  std::vector<Node*> roots;
  for (const std::string& name : fetched) {
    ASSIGN_OR_RETURN(TensorId id, ParseTensorId(name));
    Node* n = out.graph->FindNode(id.node);
    if (n == nullptr) return Internal("model '", model, "' has no node '", id.node, "'");
    roots.push_back(n);
  }
  out.client_graph = out.graph->Clone();
  PruneForTargets(out.graph.get(), roots);
  out.feed_shapes = BatchedPlaceholderShapes(*out.graph, batch);
  return out;
}

std::map<std::string, TensorShape> BatchedPlaceholderShapes(const Graph& g, int64_t batch) {
  std::map<std::string, TensorShape> shapes;
  for (Node* n : g.nodes()) {
    if (n->op() != "Placeholder") continue;
    TensorShape shape;
    if (!GetNodeAttr(n->def().attrs, "shape", &shape).ok() || IsUnknownRank(shape)) continue;
    for (int i = 0; i < shape.rank(); ++i) {
      if (shape.dim_size(i) < 0) shape.set_dim(i, batch);
    }
    shapes[n->name()] = shape;
  }
  return shapes;
}

}  // namespace fb::experiments
