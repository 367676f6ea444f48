#pragma once
// Output-shape rules of the array ops (whitepaper Table 1), shared by their shape functions
// (engine/ops/array_*_ops.cc) and their CPU kernels (kernels/cpu/), so that graph-time inference
// and run-time checks agree and report the same messages. Shapes may hold -1 (unknown) dimensions
// when called from shape inference; kernels always pass fully defined shapes. Each function
// returns InvalidArgument saying what was expected and what was found; callers prefix the node.
// Rules follow TensorFlow's array_ops.cc shape functions.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/framework/shape_inference.h"
#include "engine/framework/tensor.h"

namespace fb {

// Values of an int32 or int64 tensor (shape vectors, axes, perms, indices) as int64.
// FB_CHECKs the dtype (op definitions restrict it).
std::vector<int64_t> IntTensorValues(const Tensor& t);
// The value of int32/int64 input `i` when it is a graph constant, else nullopt.
std::optional<std::vector<int64_t>> ConstIntInput(const InferenceContext& c, int i);
// The axis in [0, rank) that `axis` in [-rank, rank) names; `what` names it in the error.
StatusOr<int> CanonicalAxis(int64_t axis, int rank, const std::string& what);
// "[1,2,3]".
std::string IntListString(const std::vector<int64_t>& v);
// The multi-index of flat (row-major) position `flat` in `shape`: "[1,0]"; "" for a scalar.
std::string FlatIndexString(const TensorShape& shape, int64_t flat);
// For shape functions: sets output `i` to `shape`, or returns the rule's error prefixed with the
// op and node ("Reshape 'r': ...").
Status SetOutputOrError(InferenceContext* c, int i, const StatusOr<TensorShape>& shape);
// For shape functions: output `i` gets rank `rank` with unknown dimensions (unknown rank if < 0).
void SetUnknownDims(InferenceContext* c, int i, int rank);

// Reshape: `requested` may hold one -1, inferred from the element count when `input` is known.
StatusOr<TensorShape> ReshapeShape(const TensorShape& input, const std::vector<int64_t>& requested);
// ExpandDims: inserts a 1 at `dim` in [-rank-1, rank].
StatusOr<TensorShape> ExpandDimsShape(const TensorShape& input, int64_t dim);
// Squeeze: removes the listed size-1 dims, or every size-1 dim when `dims` is empty (unknown
// dimensions are then kept).
StatusOr<TensorShape> SqueezeShape(const TensorShape& input, const std::vector<int64_t>& dims);
// Transpose: output[i] = input[perm[i]]; perm must be a permutation of [0, rank).
StatusOr<TensorShape> TransposeShape(const TensorShape& input, const std::vector<int64_t>& perm);
// ConcatV2: equal ranks, equal dims except `axis` (in [-rank, rank)), which is summed.
StatusOr<TensorShape> ConcatShape(const std::vector<TensorShape>& inputs, int64_t axis);
// Pack: N equal shapes stacked into a new dimension at `axis` in [-rank-1, rank].
StatusOr<TensorShape> PackShape(const std::vector<TensorShape>& inputs, int64_t axis);
// Unpack: removes `axis` (in [-rank, rank)), whose size must be `num` when known.
StatusOr<TensorShape> UnpackShape(const TensorShape& input, int64_t num, int64_t axis);
// Slice: begin[i] >= 0, size[i] = -1 means "to the end", begin + size <= input.
StatusOr<TensorShape> SliceShape(const TensorShape& input, const std::vector<int64_t>& begin,
                                 const std::vector<int64_t>& size);
// Split: `axis` divided evenly into `num_split` pieces.
StatusOr<TensorShape> SplitShape(const TensorShape& input, int64_t axis, int64_t num_split);
// Pad: `paddings` is [rank, 2] row-major (before, after), all >= 0.
StatusOr<TensorShape> PadShape(const TensorShape& input, const std::vector<int64_t>& paddings);
// GatherV2: params[:axis] + indices + params[axis+1:], axis in [-rank, rank) of params.
StatusOr<TensorShape> GatherShape(const TensorShape& params, const TensorShape& indices,
                                  int64_t axis);
// OneHot: indices with `depth` inserted at `axis` (-1: last); depth >= 0.
StatusOr<TensorShape> OneHotShape(const TensorShape& indices, int64_t depth, int64_t axis);
// UnsortedSegmentSum: [num_segments] + data[rank(segment_ids):]; data must start with ids' shape.
StatusOr<TensorShape> SegmentSumShape(const TensorShape& data, const TensorShape& segment_ids,
                                      int64_t num_segments);

}  // namespace fb
