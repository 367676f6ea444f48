#include "experiments/models/model_stats.h"

#include <cmath>
#include <set>

#include "engine/placement/graph_shapes.h"
#include "engine/placement/op_cost.h"
#include "engine/runtime/subgraph.h"
#include "experiments/models/model_graph.h"

namespace fb::experiments {
namespace {

// The ops whose multiply-accumulates the forward FLOPs count (model_stats.h).
bool IsCountedOp(const std::string& op) {
  static const auto* ops = new std::set<std::string>{"Conv2D", "MatMul", "BatchMatMul"};
  return ops->count(op) > 0;
}

bool FullyKnown(const std::vector<PartialShape>& shapes) {
  for (const PartialShape& s : shapes) {
    if (!s || !s->IsFullyDefined()) return false;
  }
  return true;
}

StatusOr<Node*> FindTensorNode(const Graph& g, const std::string& model,
                               const std::string& tensor) {
  ASSIGN_OR_RETURN(TensorId id, ParseTensorId(tensor));
  Node* n = g.FindNode(id.node);
  if (n == nullptr) return Internal("model '", model, "' has no node '", id.node, "'");
  return n;
}

}  // namespace

int64_t ParameterCount(const Model& model) {
  int64_t count = 0;
  for (const ModelVariable& v : model.variables) {
    int64_t elements = 1;
    for (int i = 0; i < v.shape.rank(); ++i) elements *= std::max<int64_t>(v.shape.dim_size(i), 0);
    count += elements;
  }
  return count;
}

StatusOr<int64_t> ForwardFlopsPerExample(const Model& model) {
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(model.scope.ToGraphDef()));
  ASSIGN_OR_RETURN(Node * logits, FindTensorNode(*g, model.name, model.logits));
  ASSIGN_OR_RETURN(Node * images, FindTensorNode(*g, model.name, model.images));
  PruneForTargets(g.get(), {logits, images});  // the forward pass only: no gradients, no loss
  ASSIGN_OR_RETURN(GraphShapes shapes, InferGraphShapes(*g, BatchedPlaceholderShapes(*g, 1)));
  ASSIGN_OR_RETURN(TensorId images_id, ParseTensorId(model.images));
  const PartialShape& images_shape = shapes.output(*images, images_id.index);
  if (!images_shape || images_shape->rank() < 1 || images_shape->dim_size(0) < 1) {
    return InvalidArgument("model '", model.name, "': the batch size of '", model.images,
                           "' is unknown (shape ", PartialShapeString(images_shape), ")");
  }
  double flops = 0;
  for (Node* n : g->nodes()) {
    if (!IsCountedOp(n->op())) continue;
    std::vector<PartialShape> in = shapes.inputs(*n);
    const std::vector<PartialShape>& out = shapes.outputs(*n);
    if (!FullyKnown(in) || !FullyKnown(out)) {
      return InvalidArgument("model '", model.name, "': ", n->op(), " '", n->name(),
                             "' has shapes not fully known (input ",
                             PartialShapeString(in.empty() ? PartialShape() : in[0]),
                             ", output ",
                             PartialShapeString(out.empty() ? PartialShape() : out[0]), ")");
    }
    flops += EstimateOpWork(*n, in, out).flops;
  }
  return std::llround(flops / static_cast<double>(images_shape->dim_size(0)));
}

}  // namespace fb::experiments
