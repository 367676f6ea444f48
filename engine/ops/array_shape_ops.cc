// Array ops of whitepaper Table 1 that read or change a tensor's shape without moving its data:
// Shape, Rank, Size, Reshape, ExpandDims, Squeeze. Definitions follow TensorFlow's array_ops.cc;
// shape functions use constant inputs (the requested shape, the new axis) when the graph has them.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

namespace {

Status ShapeOfShape(InferenceContext* c) {
  c->set_output(0, TensorShape{c->input(0) ? c->input(0)->rank() : -1});
  return Status::OK();
}

Status ReshapeShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(1, 1));
  auto requested = ConstIntInput(*c, 1);
  if (!requested) {
    const PartialShape& s = c->input(1);
    SetUnknownDims(c, 0, s && s->dim_size(0) >= 0 ? static_cast<int>(s->dim_size(0)) : -1);
    return Status::OK();
  }
  TensorShape input = c->input(0) ? *c->input(0) : UnknownRankShape();
  return SetOutputOrError(c, 0, ReshapeShape(input, *requested));
}

Status ExpandDimsShapeFn(InferenceContext* c) {
  auto dim = ConstIntInput(*c, 1);
  if (dim && dim->size() != 1)
    return c->Error("dim must hold one value, got ", IntListString(*dim));
  if (!c->input(0)) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  if (!dim) {
    SetUnknownDims(c, 0, c->input(0)->rank() + 1);
    return Status::OK();
  }
  return SetOutputOrError(c, 0, ExpandDimsShape(*c->input(0), (*dim)[0]));
}

Status SqueezeShapeFn(InferenceContext* c) {
  std::vector<int64_t> dims;
  RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &dims));
  // Squeezing every size-1 dimension of a shape with unknown dimensions gives an unknown rank.
  if (!c->input(0) || (dims.empty() && !c->input(0)->IsFullyDefined())) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  return SetOutputOrError(c, 0, SqueezeShape(*c->input(0), dims));
}

}  // namespace

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(ShapeOfShape)
    .Doc("The shape of `input` as a 1-D tensor of `out_type`.");

REGISTER_OP("Rank")
    .Input("input: T")
    .Output("output: int32")
    .Attr("T: type")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("The number of dimensions of `input`, an int32 scalar.");

REGISTER_OP("Size")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("The number of elements of `input`, a scalar of `out_type`.");

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = int32")
    .SetShapeFn(ReshapeShapeFn)
    .Doc("`tensor` with the row-major element order kept and dimensions `shape` (1-D). One entry "
         "of `shape` may be -1 and is inferred from the element count. Shares the buffer.");

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = int32")
    .SetShapeFn(ExpandDimsShapeFn)
    .Doc("`input` with a dimension of size 1 inserted at `dim` (a scalar in [-rank-1, rank]; "
         "negative counts from the end).");

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) = []")
    .SetShapeFn(SqueezeShapeFn)
    .Doc("`input` without the size-1 dimensions listed in `squeeze_dims` (all size-1 dimensions "
         "when empty). Squeezing a dimension that is not 1 is an error.");

}  // namespace fb
