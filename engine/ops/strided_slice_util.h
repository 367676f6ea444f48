#pragma once
// The meaning of a StridedSlice spec (engine/ops/array_strided_slice_ops.cc), shared by the shape
// function and the CPU kernels of StridedSlice and StridedSliceGrad, after TensorFlow's
// util/strided_slice_op.cc (ValidateStridedSliceOp). The spec is "sparse": entry i of begin, end
// and strides is read with bit i of the masks:
//   begin_mask / end_mask: ignore begin[i] / end[i] and take the widest range (foo[:3], foo[2:]);
//   ellipsis_mask (at most one bit): as many full dimensions as the input's rank needs (foo[...,
//   0]); new_axis_mask: insert a dimension of 1 into the output (foo[np.newaxis]); begin/end
//   ignored; shrink_axis_mask: take the single index begin[i] and drop the dimension (foo[2]).
// Without an ellipsis, dimensions after the spec are taken whole. Negative begin/end count from
// the end of the dimension and are clamped like Python slices; strides may be negative but not 0.
#include <cstdint>
#include <vector>

#include "engine/framework/tensor_shape.h"

namespace fb {

struct StridedSliceMasks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink_axis = 0;
};

// A spec resolved against an input shape, one entry per input dimension ("dense").
struct StridedSliceDense {
  std::vector<int64_t> begin;    // first index taken
  std::vector<int64_t> strides;  // step (1 for shrunk dimensions)
  // Elements taken per input dimension (1 where shrunk; -1 when the input dimension is unknown).
  TensorShape processing_shape;
  // The output: processing_shape with new axes (1) inserted and shrunk dimensions removed.
  TensorShape final_shape;
  // Whether the slice takes every element in order (the output is the input, reshaped).
  bool is_identity = false;
};

// Resolves the spec against `input` (which may hold -1 dims: the matching output dims are -1).
// InvalidArgument, saying what was expected and found, when begin, end and strides differ in
// length or exceed 64 entries, more than one ellipsis bit is set, the spec names more dimensions
// than the input has, a stride is 0, or a shrunk index is out of range ("slice index 5 of
// dimension 0 out of bounds for input of shape [3,4]").
StatusOr<StridedSliceDense> ResolveStridedSlice(const TensorShape& input,
                                                const std::vector<int64_t>& begin,
                                                const std::vector<int64_t>& end,
                                                const std::vector<int64_t>& strides,
                                                const StridedSliceMasks& masks);

}  // namespace fb
