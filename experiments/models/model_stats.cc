#include "experiments/models/model_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
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

// The node of tensor `name` ("node:port"); NotFound naming it.
StatusOr<Node*> FindTensorNode(const Graph& g, const std::string& name) {
  ASSIGN_OR_RETURN(TensorId id, ParseTensorId(name));
  Node* n = g.FindNode(id.node);
  if (n == nullptr) return NotFound("the graph has no node '", id.node, "' (tensor '", name, "')");
  return n;
}

// A loop's Merge: one of its inputs comes back from a NextIteration (whitepaper 4.4).
bool IsLoopMerge(const Node& n) {
  if (n.op() != "Merge") return false;
  for (const Edge* e : n.in_edges()) {
    if (!e->IsControlEdge() && e->src->op() == "NextIteration") return true;
  }
  return false;
}

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  std::string out;
  for (const PartialShape& s : shapes) out += (out.empty() ? "" : ", ") + PartialShapeString(s);
  return "(" + out + ")";
}

// Shape refinement does not see loop-carried shapes: a Merge is refined before its
// NextIteration input. Like tf.while_loop's default shape invariants, a loop variable is taken to
// keep the shape it enters with: a loop's Merge whose output is not fully known gets the shape of
// a fully known input (its Enter), and refinement runs again until none changes (nested loops).
StatusOr<GraphShapes> InferWithLoopInvariants(const Graph& g,
                                              std::map<std::string, TensorShape> feed_shapes) {
  for (;;) {
    ASSIGN_OR_RETURN(GraphShapes shapes, InferGraphShapes(g, feed_shapes, /*strict=*/false));
    bool changed = false;
    for (Node* n : g.nodes()) {
      if (!IsLoopMerge(*n) || feed_shapes.count(n->name()) > 0) continue;
      const PartialShape& out = shapes.output(*n, 0);
      if (out && out->IsFullyDefined()) continue;
      for (const PartialShape& in : shapes.inputs(*n)) {
        if (!in || !in->IsFullyDefined()) continue;
        feed_shapes[n->name()] = *in;
        changed = true;
        break;
      }
    }
    if (!changed) return InferGraphShapes(g, feed_shapes, /*strict=*/true);
  }
}

// Prunes `g` to what the tensors `outputs` need (no gradients, no optimizer) and refines the
// shapes of what is left.
StatusOr<GraphShapes> PrunedShapes(Graph* g, const std::vector<std::string>& outputs,
                                   const std::map<std::string, TensorShape>& feed_shapes) {
  std::vector<Node*> roots;
  for (const std::string& name : outputs) {
    ASSIGN_OR_RETURN(Node * n, FindTensorNode(*g, name));
    roots.push_back(n);
  }
  PruneForTargets(g, roots);
  return InferWithLoopInvariants(*g, feed_shapes);
}

// The FLOPs of the counted ops of `g`.
StatusOr<double> CountedFlops(const Graph& g, const GraphShapes& shapes) {
  double flops = 0;
  for (Node* n : g.nodes()) {
    if (!IsCountedOp(n->op())) continue;
    std::vector<PartialShape> in = shapes.inputs(*n);
    const std::vector<PartialShape>& out = shapes.outputs(*n);
    if (!FullyKnown(in) || !FullyKnown(out)) {
      return InvalidArgument(n->op(), " '", n->name(), "': FLOPs need fully known shapes, got ",
                             ShapesString(in), " -> ", ShapesString(out));
    }
    flops += EstimateOpWork(*n, in, out).flops;
  }
  return flops;
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

StatusOr<int64_t> ForwardFlops(const GraphDef& def, const std::vector<std::string>& outputs,
                               const std::map<std::string, TensorShape>& feed_shapes) {
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(def));
  ASSIGN_OR_RETURN(GraphShapes shapes, PrunedShapes(g.get(), outputs, feed_shapes));
  ASSIGN_OR_RETURN(double flops, CountedFlops(*g, shapes));
  return std::llround(flops);
}

StatusOr<int64_t> ForwardFlopsPerExample(const Model& model) {
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::FromGraphDef(model.scope.ToGraphDef()));
  ASSIGN_OR_RETURN(GraphShapes shapes, PrunedShapes(g.get(), {model.logits, model.images},
                                                    BatchedPlaceholderShapes(*g, 1)));
  ASSIGN_OR_RETURN(Node * images, FindTensorNode(*g, model.images));
  ASSIGN_OR_RETURN(TensorId images_id, ParseTensorId(model.images));
  const PartialShape& images_shape = shapes.output(*images, images_id.index);
  if (!images_shape || images_shape->rank() < 1 || images_shape->dim_size(0) < 1) {
    return InvalidArgument("model '", model.name, "': the batch size of '", model.images,
                           "' is unknown (shape ", PartialShapeString(images_shape), ")");
  }
  auto flops = CountedFlops(*g, shapes);
  if (!flops.ok()) return flops.status().WithPrefix("model '" + model.name + "'");
  return std::llround(*flops / static_cast<double>(images_shape->dim_size(0)));
}

}  // namespace fb::experiments
