// StridedSlice of whitepaper Table 1 ("Array operations") and StridedSliceGrad, its gradient, with
// TensorFlow's signatures and mask attrs (array_ops.cc): NumPy-style basic indexing such as
// x[1:-1:2, ..., tf.newaxis, 3]. The spec's meaning lives in strided_slice_util.h, shared with
// the kernels (kernels/cpu/strided_slice_kernels.cc); gradients:
// engine/autodiff/array_grad_strided_slice.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"
#include "engine/ops/strided_slice_util.h"

namespace fb {
namespace {

Status GetMasks(const InferenceContext& c, StridedSliceMasks* m) {
  RETURN_IF_ERROR(c.GetAttr("begin_mask", &m->begin));
  RETURN_IF_ERROR(c.GetAttr("end_mask", &m->end));
  RETURN_IF_ERROR(c.GetAttr("ellipsis_mask", &m->ellipsis));
  RETURN_IF_ERROR(c.GetAttr("new_axis_mask", &m->new_axis));
  return c.GetAttr("shrink_axis_mask", &m->shrink_axis);
}

// The output shape of slicing `input` with the spec at inputs [first, first + 3), when the spec
// is a graph constant; otherwise unknown.
Status SliceShapeFn(InferenceContext* c, const PartialShape& input, int first) {
  for (int i = first; i < first + 3; ++i) RETURN_IF_ERROR(c->WithRank(i, 1));
  StridedSliceMasks masks;
  RETURN_IF_ERROR(GetMasks(*c, &masks));
  auto begin = ConstIntInput(*c, first), end = ConstIntInput(*c, first + 1);
  auto strides = ConstIntInput(*c, first + 2);
  if (!input || !begin || !end || !strides) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  auto dense = ResolveStridedSlice(*input, *begin, *end, *strides, masks);
  if (!dense.ok()) return c->Error(dense.status().message());
  c->set_output(0, dense->final_shape);
  return Status::OK();
}

Status StridedSliceShapeFn(InferenceContext* c) { return SliceShapeFn(c, c->input(0), 1); }

// StridedSliceGrad: the output has the shape given by input 0 (when constant); dy must have the
// slice's shape.
Status StridedSliceGradShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(0, 1));
  auto shape = ConstIntInput(*c, 0);
  if (!shape) {
    SetUnknownDims(c, 0,
                   c->input(0) && c->input(0)->dim_size(0) >= 0
                       ? static_cast<int>(c->input(0)->dim_size(0))
                       : -1);
    return Status::OK();
  }
  Status valid = ValidateShape(*shape, "shape " + IntListString(*shape));
  if (!valid.ok()) return c->Error(valid.message());
  c->set_output(0, TensorShape(*shape));
  return Status::OK();
}

// The inputs and attrs both ops share.
OpDefBuilder& SpecArgs(OpDefBuilder& b) {
  return b.Input("begin: Index")
      .Input("end: Index")
      .Input("strides: Index")
      .Attr("Index: {int32, int64}")
      .Attr("begin_mask: int = 0")
      .Attr("end_mask: int = 0")
      .Attr("ellipsis_mask: int = 0")
      .Attr("new_axis_mask: int = 0")
      .Attr("shrink_axis_mask: int = 0");
}

const bool kRegistered = [] {
  OpDefBuilder slice("StridedSlice");
  slice.Input("input: T");
  SpecArgs(slice)
      .Output("output: T")
      .Attr("T: type")
      .SetShapeFn(StridedSliceShapeFn)
      .Doc(
          "The elements of `input` at begin[i], begin[i] + strides[i], ... up to but excluding "
          "end[i] along each dimension, as NumPy basic indexing and TensorFlow's StridedSlice. "
          "begin, end, strides: 1-D of equal length. Bit i of begin_mask / end_mask ignores "
          "begin[i] / end[i] (widest range); ellipsis_mask (one bit) stands for the full "
          "dimensions not named; new_axis_mask inserts a dimension of 1; shrink_axis_mask takes "
          "the index begin[i] and drops the dimension. Negative indices count from the end; "
          "ranges are clamped like Python slices; strides are non-zero.");
  OpRegistry::Global()->Register(slice);
  OpDefBuilder grad("StridedSliceGrad");
  grad.Input("shape: Index");
  SpecArgs(grad)
      .Input("dy: T")
      .Output("output: T")
      .Attr("T: type")
      .SetShapeFn(StridedSliceGradShapeFn)
      .Doc(
          "The gradient of StridedSlice: a tensor of `shape` (StridedSlice's input shape) that "
          "is zero except at the elements the slice (same begin, end, strides and masks) took, "
          "which hold `dy` (of the slice's output shape).");
  OpRegistry::Global()->Register(grad);
  return true;
}();

}  // namespace
}  // namespace fb
