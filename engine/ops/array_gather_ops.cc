// Array ops of whitepaper Table 1 that index into tensors: Gather, GatherV2, OneHot, and the
// scatter-add UnsortedSegmentSum (Gather's dense gradient, whitepaper 4.1). Definitions follow
// TensorFlow's array_ops.cc and math_ops.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

namespace {

// Gather with the axis either fixed at 0 (`axis_input` < 0) or read from a constant input.
Status GatherShapeFn(InferenceContext* c, int axis_input) {
  int64_t axis = 0;
  if (axis_input >= 0) {
    auto a = ConstIntInput(*c, axis_input);
    if (!a) {
      c->set_output(0, std::nullopt);
      return Status::OK();
    }
    axis = (*a)[0];
  }
  if (!c->input(0) || !c->input(1)) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  return SetOutputOrError(c, 0, GatherShape(*c->input(0), *c->input(1), axis));
}

Status OneHotShapeFn(InferenceContext* c) {
  int64_t axis;
  RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  auto depth = ConstIntInput(*c, 1);
  if (!c->input(0)) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  auto out = OneHotShape(*c->input(0), depth ? (*depth)[0] : 0, axis);
  if (!out.ok()) return c->Error(out.status().message());
  if (!depth) out->set_dim(axis == -1 ? out->rank() - 1 : static_cast<int>(axis), -1);
  c->set_output(0, *out);
  return Status::OK();
}

Status SegmentSumShapeFn(InferenceContext* c) {
  auto num = ConstIntInput(*c, 2);
  if (!c->input(0) || !c->input(1)) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  return SetOutputOrError(c, 0, SegmentSumShape(*c->input(0), *c->input(1), num ? (*num)[0] : -1));
}

}  // namespace

REGISTER_OP("Gather")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("validate_indices: bool = true")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) { return GatherShapeFn(c, -1); })
    .Doc("Rows of `params` (dimension 0) picked by `indices`: output shape is "
         "indices.shape + params.shape[1:]. An index outside [0, params.shape[0]) is an "
         "InvalidArgument error naming it.");

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Output("output: Tparams")
    .Attr("batch_dims: int = 0")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) { return GatherShapeFn(c, 2); })
    .Doc("Slices of `params` along `axis` (a scalar in [-rank, rank)) picked by `indices`: output "
         "shape is params.shape[:axis] + indices.shape + params.shape[axis+1:]. Only batch_dims "
         "= 0 is supported. Out-of-range indices are an InvalidArgument error naming them.");

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Output("output: T")
    .Attr("axis: int = -1")
    .Attr("T: type")
    .Attr("TI: {uint8, int32, int64} = int64")
    .SetShapeFn(OneHotShapeFn)
    .Doc("A one-hot encoding of `indices`: a new dimension of size `depth` at `axis` (-1: last), "
         "`on_value` where its position equals the index and `off_value` elsewhere. Indices "
         "outside [0, depth) give a row of `off_value`.");

REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: {float, double, half, bfloat16, int32, int64, int8, int16, uint8, complex64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = int32")
    .SetShapeFn(SegmentSumShapeFn)
    .Doc("output[i, ...] = sum of data[j..., ...] over all j with segment_ids[j...] == i: a "
         "scatter-add into [num_segments] + data.shape[rank(segment_ids):]. Negative ids are "
         "dropped; ids >= num_segments are an InvalidArgument error naming them.");

}  // namespace fb
