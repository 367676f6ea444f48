#include "engine/placement/graph_shapes.h"

namespace fb {

namespace {

bool FullyDefined(const PartialShape& s) { return s && s->IsFullyDefined(); }

// The value of a shape-query op whose input shape is fully known (Shape, Size, Rank).
std::optional<Tensor> FoldShapeQuery(const Node& n, const PartialShape& in) {
  if (n.op() == "Rank" && in) return Tensor::Scalar<int32_t>(in->rank());
  if (!FullyDefined(in)) return std::nullopt;
  DataType out = n.num_outputs() > 0 ? n.output_type(0) : DataType::kInvalid;
  if (n.op() == "Size") {
    if (out == DataType::kInt64) return Tensor::Scalar<int64_t>(in->num_elements());
    return Tensor::Scalar<int32_t>(static_cast<int32_t>(in->num_elements()));
  }
  if (n.op() != "Shape") return std::nullopt;
  const std::vector<int64_t>& d = in->dim_sizes();
  TensorShape vec({static_cast<int64_t>(d.size())});
  if (out == DataType::kInt64) return Tensor::FromVector<int64_t>(d, vec);
  return Tensor::FromVector<int32_t>(std::vector<int32_t>(d.begin(), d.end()), vec);
}

}  // namespace

std::vector<PartialShape> GraphShapes::inputs(const Node& n) const {
  std::vector<PartialShape> in(n.num_inputs());
  for (const Edge* e : n.in_edges())
    if (!e->IsControlEdge() && !outputs_[e->src->id()].empty())
      in[e->dst_input] = outputs_[e->src->id()][e->src_output];
  return in;
}

const Tensor* GraphShapes::constant(const Node& n) const {
  auto it = constants_.find(n.id());
  return it == constants_.end() ? nullptr : &it->second;
}

StatusOr<GraphShapes> InferGraphShapes(const Graph& g,
                                       const std::map<std::string, TensorShape>& feed_shapes,
                                       bool strict) {
  ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
  GraphShapes r;
  r.outputs_.assign(g.num_node_ids(), {});
  for (Node* n : order) {
    std::vector<PartialShape>& out = r.outputs_[n->id()];
    out.assign(n->num_outputs(), std::nullopt);
    if (auto it = feed_shapes.find(n->name()); it != feed_shapes.end() && !out.empty()) {
      out[0] = it->second;
      continue;
    }
    std::vector<const Tensor*> values(n->num_inputs(), nullptr);
    for (const Edge* e : n->in_edges())
      if (!e->IsControlEdge() && e->src_output == 0) values[e->dst_input] = r.constant(*e->src);
    std::vector<PartialShape> in = r.inputs(*n);
    if (n->op() == "Const") {
      Tensor value;
      if (GetNodeAttr(n->def().attrs, "value", &value).ok()) r.constants_[n->id()] = value;
    } else if (n->num_inputs() == 1) {
      if (auto folded = FoldShapeQuery(*n, in[0])) r.constants_[n->id()] = *folded;
    }
    if (!n->op_def().shape_fn) continue;
    InferenceContext c(n->name(), n->op_def(), n->def().attrs, in, values);
    Status s = n->op_def().shape_fn(&c);
    if (!s.ok() && strict) return s;
    if (!s.ok()) continue;
    for (int i = 0; i < n->num_outputs() && i < c.num_outputs(); ++i) out[i] = c.outputs()[i];
  }
  return r;
}

int64_t EstimatedElements(const PartialShape& shape, int64_t unknown_dim) {
  if (!shape) return 1;
  int64_t n = 1;
  for (int64_t d : shape->dim_sizes()) n *= d < 0 ? unknown_dim : d;
  return n;
}

int64_t EstimatedBytes(DataType dtype, const PartialShape& shape, int64_t unknown_dim) {
  return EstimatedElements(shape, unknown_dim) * static_cast<int64_t>(DataTypeSize(dtype));
}

}  // namespace fb
