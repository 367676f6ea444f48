// Gradient functions of the array ops (whitepaper 4.1), after TensorFlow's array_grad.py. Index,
// shape and axis inputs get no gradient. Shapes needed at run time are read with Shape nodes, so
// the gradients work for inputs whose shapes are only known when the graph runs.
#include <optional>

#include "engine/autodiff/gradient_registry.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

namespace {

using Grads = std::vector<NodeOut>;

StatusOr<NodeOut> ShapeOf(GradContext* c, NodeOut x, DataType out_type = DataType::kInt32) {
  return c->Op("Shape", {x}, {{"out_type", out_type}});
}

// A Const of `dtype` (int32 or int64) holding `values` (1-D, or a scalar when `scalar`).
StatusOr<NodeOut> IntConst(GradContext* c, const std::vector<int64_t>& values, DataType dtype,
                           bool scalar = false) {
  TensorShape shape = scalar ? TensorShape{} : TensorShape{static_cast<int64_t>(values.size())};
  if (dtype == DataType::kInt64) return c->Const(Tensor::FromVector<int64_t>(values, shape));
  return c->Const(Tensor::FromVector<int32_t>({values.begin(), values.end()}, shape));
}

// The value of data input i of the forward node when it is a Const int scalar, else nullopt.
std::optional<int64_t> ConstScalarInput(GradContext* c, int i) {
  const Edge* e = c->node()->input_edge(i);
  if (!e || e->src->op() != "Const") return std::nullopt;
  Tensor value;
  if (!GetNodeAttr(e->src->def().attrs, "value", &value).ok() || value.NumElements() != 1 ||
      (value.dtype() != DataType::kInt32 && value.dtype() != DataType::kInt64))
    return std::nullopt;
  return IntTensorValues(value)[0];
}

// Adds a node whose args are given as lists (for "N * T" args) and returns all its outputs.
StatusOr<Grads> MultiOp(GradContext* c, const std::string& op, const std::vector<Grads>& args,
                        const AttrMap& attrs = {}) {
  NodeBuilder b = c->Builder(op, op);
  const OpDef* def = *OpRegistry::Global()->LookUp(op);
  for (size_t i = 0; i < args.size(); ++i) {
    if (def->inputs[i].number_attr.empty()) b.Input(args[i].at(0));
    else b.Input(args[i]);
  }
  for (const auto& [k, v] : attrs) b.Attr(k, v);
  ASSIGN_OR_RETURN(Node * n, b.Finalize(c->graph()));
  Grads outs;
  for (int i = 0; i < n->num_outputs(); ++i) outs.push_back({n, i});
  return outs;
}

// dx = dy, reshaped to x's shape; other inputs (shape, dim) get none.
Status ReshapeToInputGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut shape, ShapeOf(c, c->input(0)));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Reshape", {dy[0], shape}));
  dx->assign(c->node()->num_inputs(), NodeOut{});
  (*dx)[0] = g;
  return Status::OK();
}

Status IdentityGrad(GradContext* c, const Grads& dy, Grads* dx) {
  *dx = {dy[0]};
  return Status::OK();
}

Status CheckNumericsGrad(GradContext* c, const Grads& dy, Grads* dx) {
  std::string message;
  RETURN_IF_ERROR(c->GetAttr("message", &message));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("CheckNumerics", {dy[0]},
                                    {{"message", "Not a number (NaN) or infinity (Inf) values "
                                                 "detected in gradient. " + message}}));
  *dx = {g};
  return Status::OK();
}

Status TransposeGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut inverse, c->Op("InvertPermutation", {c->input(1)}));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Transpose", {dy[0], inverse}));
  *dx = {g, NodeOut{}};
  return Status::OK();
}

// ConcatV2 and Concat: dx_i = Slice(dy, ConcatOffset(axis, shapes)[i], shape_i).
Status ConcatGradImpl(GradContext* c, const Grads& dy, Grads* dx, int first, int axis_input) {
  const int n = c->node()->num_inputs() - 1;
  NodeOut axis = c->input(axis_input);
  if (axis.dtype() != DataType::kInt32) {  // ConcatOffset takes an int32 axis
    std::optional<int64_t> value = ConstScalarInput(c, axis_input);
    if (!value) return Unimplemented("the gradient needs an int32 axis or a constant one");
    ASSIGN_OR_RETURN(axis, IntConst(c, {*value}, DataType::kInt32, true));
  }
  Grads shapes;
  for (int i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(NodeOut s, ShapeOf(c, c->input(first + i)));
    shapes.push_back(s);
  }
  ASSIGN_OR_RETURN(Grads offsets, MultiOp(c, "ConcatOffset", {{axis}, shapes}));
  dx->assign(n + 1, NodeOut{});
  for (int i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN((*dx)[first + i], c->Op("Slice", {dy[0], offsets[i], shapes[i]}));
  }
  return Status::OK();
}
Status ConcatV2Grad(GradContext* c, const Grads& dy, Grads* dx) {
  return ConcatGradImpl(c, dy, dx, 0, c->node()->num_inputs() - 1);
}
Status ConcatGrad(GradContext* c, const Grads& dy, Grads* dx) {
  return ConcatGradImpl(c, dy, dx, 1, 0);
}

Status SplitGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(Grads g, MultiOp(c, "Concat", {{c->input(0)}, dy}));
  *dx = {NodeOut{}, g[0]};
  return Status::OK();
}

Status PackGrad(GradContext* c, const Grads& dy, Grads* dx) {
  int64_t axis;
  RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  ASSIGN_OR_RETURN(*dx, MultiOp(c, "Unpack", {{dy[0]}},
                                {{"num", static_cast<int64_t>(c->node()->num_inputs())},
                                 {"axis", axis}}));
  return Status::OK();
}

Status UnpackGrad(GradContext* c, const Grads& dy, Grads* dx) {
  int64_t axis;
  RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  ASSIGN_OR_RETURN(Grads g, MultiOp(c, "Pack", {dy}, {{"axis", axis}}));
  *dx = {g[0]};
  return Status::OK();
}

// Slice: dy padded back to x's shape with zeros: before = begin, after = shape(x) - begin - size.
Status SliceGrad(GradContext* c, const Grads& dy, Grads* dx) {
  NodeOut begin = c->input(1);
  ASSIGN_OR_RETURN(NodeOut x_shape, ShapeOf(c, c->input(0), begin.dtype()));
  ASSIGN_OR_RETURN(NodeOut y_shape, ShapeOf(c, c->output(0), begin.dtype()));
  ASSIGN_OR_RETURN(NodeOut rest, c->Op("Sub", {x_shape, y_shape}));
  ASSIGN_OR_RETURN(NodeOut after, c->Op("Sub", {rest, begin}));
  ASSIGN_OR_RETURN(NodeOut column, IntConst(c, {-1, 1}, DataType::kInt32));
  ASSIGN_OR_RETURN(NodeOut before_col, c->Op("Reshape", {begin, column}));
  ASSIGN_OR_RETURN(NodeOut after_col, c->Op("Reshape", {after, column}));
  ASSIGN_OR_RETURN(NodeOut one, IntConst(c, {1}, DataType::kInt32, true));
  ASSIGN_OR_RETURN(Grads paddings, MultiOp(c, "ConcatV2", {{before_col, after_col}, {one}}));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Pad", {dy[0], paddings[0]}));
  *dx = {g, NodeOut{}, NodeOut{}};
  return Status::OK();
}

// Pad: the slice of dy where x sits: begin = paddings[:, 0], size = shape(x).
Status PadGrad(GradContext* c, const Grads& dy, Grads* dx) {
  NodeOut paddings = c->input(1);
  ASSIGN_OR_RETURN(NodeOut zero, IntConst(c, {0, 0}, paddings.dtype()));
  ASSIGN_OR_RETURN(NodeOut first_col, IntConst(c, {-1, 1}, paddings.dtype()));
  ASSIGN_OR_RETURN(NodeOut before, c->Op("Slice", {paddings, zero, first_col}));
  ASSIGN_OR_RETURN(NodeOut flat, IntConst(c, {-1}, DataType::kInt32));
  ASSIGN_OR_RETURN(NodeOut begin, c->Op("Reshape", {before, flat}));
  ASSIGN_OR_RETURN(NodeOut size, ShapeOf(c, c->input(0), paddings.dtype()));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Slice", {dy[0], begin, size}));
  *dx = {g, NodeOut{}};
  return Status::OK();
}

Status UnsortedSegmentSumGrad(GradContext* c, const Grads& dy, Grads* dx) {
  // Every data row j receives dy[segment_ids[j]]; negative ids make this Gather fail at run time
  // (TensorFlow gives those rows zeros).
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Gather", {dy[0], c->input(1)}));
  *dx = {g, NodeOut{}, NodeOut{}};
  return Status::OK();
}

// Gather along a non-negative constant axis a: dy is viewed as [params.shape[:a], n, inner]
// (n = number of indices, inner flattened), the index dimension moved to the front,
// scatter-added by UnsortedSegmentSum into params.shape[a] rows, and moved back: a dense
// gradient of params' shape. For a > 0 the inner size is inferred (-1), so an empty dy fails.
Status GatherGradImpl(GradContext* c, const Grads& dy, Grads* dx, int64_t a) {
  const DataType i32 = DataType::kInt32;
  ASSIGN_OR_RETURN(NodeOut ps, ShapeOf(c, c->input(0)));
  ASSIGN_OR_RETURN(NodeOut zero, IntConst(c, {0}, i32, true));
  ASSIGN_OR_RETURN(NodeOut size, c->Op("Size", {c->input(1)}));
  ASSIGN_OR_RETURN(NodeOut n, c->Op("ExpandDims", {size, zero}));
  ASSIGN_OR_RETURN(NodeOut ids, c->Op("Reshape", {c->input(1), n}));
  ASSIGN_OR_RETURN(NodeOut a_const, IntConst(c, {a}, i32, true));
  ASSIGN_OR_RETURN(NodeOut num, c->Op("Gather", {ps, a_const}));
  Grads parts;
  if (a == 0) {
    ASSIGN_OR_RETURN(NodeOut one, IntConst(c, {1}, i32));
    ASSIGN_OR_RETURN(NodeOut to_end, IntConst(c, {-1}, i32));
    ASSIGN_OR_RETURN(NodeOut rest, c->Op("Slice", {ps, one, to_end}));
    parts = {n, rest};
  } else {
    ASSIGN_OR_RETURN(NodeOut origin, IntConst(c, {0}, i32));
    ASSIGN_OR_RETURN(NodeOut a_vec, IntConst(c, {a}, i32));
    ASSIGN_OR_RETURN(NodeOut outer, c->Op("Slice", {ps, origin, a_vec}));
    ASSIGN_OR_RETURN(NodeOut inner, IntConst(c, {-1}, i32));
    parts = {outer, n, inner};
  }
  ASSIGN_OR_RETURN(Grads values_shape, MultiOp(c, "ConcatV2", {parts, {zero}}));
  ASSIGN_OR_RETURN(NodeOut values, c->Op("Reshape", {dy[0], values_shape[0]}));
  NodeOut g;
  if (a == 0) {
    ASSIGN_OR_RETURN(g, c->Op("UnsortedSegmentSum", {values, ids, num}));
  } else {
    std::vector<int64_t> perm{a}, inverse;
    for (int64_t i = 0; i < a; ++i) perm.push_back(i), inverse.push_back(i + 1);
    perm.push_back(a + 1);
    inverse.insert(inverse.begin() + a, 0);
    inverse.push_back(a + 1);
    ASSIGN_OR_RETURN(NodeOut perm_c, IntConst(c, perm, i32));
    ASSIGN_OR_RETURN(NodeOut inverse_c, IntConst(c, inverse, i32));
    ASSIGN_OR_RETURN(NodeOut front, c->Op("Transpose", {values, perm_c}));
    ASSIGN_OR_RETURN(NodeOut summed, c->Op("UnsortedSegmentSum", {front, ids, num}));
    ASSIGN_OR_RETURN(NodeOut back, c->Op("Transpose", {summed, inverse_c}));
    ASSIGN_OR_RETURN(g, c->Op("Reshape", {back, ps}));
  }
  dx->assign(c->node()->num_inputs(), NodeOut{});
  (*dx)[0] = g;
  return Status::OK();
}

Status GatherGrad(GradContext* c, const Grads& dy, Grads* dx) {
  return GatherGradImpl(c, dy, dx, 0);
}

Status GatherV2Grad(GradContext* c, const Grads& dy, Grads* dx) {
  std::optional<int64_t> axis = ConstScalarInput(c, 2);
  if (!axis || *axis < 0)
    return Unimplemented("the gradient of GatherV2 needs a non-negative constant axis");
  return GatherGradImpl(c, dy, dx, *axis);
}

}  // namespace

REGISTER_GRADIENT(Gather, GatherGrad);
REGISTER_GRADIENT(GatherV2, GatherV2Grad);
REGISTER_GRADIENT(Identity, IdentityGrad);
REGISTER_GRADIENT(CheckNumerics, CheckNumericsGrad);
REGISTER_GRADIENT(Reshape, ReshapeToInputGrad);
REGISTER_GRADIENT(ExpandDims, ReshapeToInputGrad);
REGISTER_GRADIENT(Squeeze, ReshapeToInputGrad);
REGISTER_GRADIENT(Transpose, TransposeGrad);
REGISTER_GRADIENT(ConcatV2, ConcatV2Grad);
REGISTER_GRADIENT(Concat, ConcatGrad);
REGISTER_GRADIENT(Split, SplitGrad);
REGISTER_GRADIENT(Pack, PackGrad);
REGISTER_GRADIENT(Unpack, UnpackGrad);
REGISTER_GRADIENT(Slice, SliceGrad);
REGISTER_GRADIENT(Pad, PadGrad);
REGISTER_GRADIENT(UnsortedSegmentSum, UnsortedSegmentSumGrad);

REGISTER_NO_GRADIENT(StopGradient);
REGISTER_NO_GRADIENT(Shape);
REGISTER_NO_GRADIENT(Rank);
REGISTER_NO_GRADIENT(Size);
REGISTER_NO_GRADIENT(OneHot);
REGISTER_NO_GRADIENT(InvertPermutation);
REGISTER_NO_GRADIENT(ConcatOffset);
REGISTER_NO_GRADIENT(RandomUniform);
REGISTER_NO_GRADIENT(RandomStandardNormal);
REGISTER_NO_GRADIENT(TruncatedNormal);

}  // namespace fb
