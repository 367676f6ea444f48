#pragma once
// Client wrappers for the array ops (whitepaper Table 1; engine/ops/array_*_ops.cc):
//
//   auto y = ops::Reshape(root, x, {2, -1});
//   auto c = ops::Concat(root, {a, b}, /*axis=*/1);
//   auto parts = ops::Split(root, c, /*axis=*/1, /*num_split=*/2);
//
// Index-like operands (shapes, axes, perms, begins) are IntInputs: either a tensor computed in
// the graph (an Output) or constant values ({2, -1}, a std::vector, or one integer), which become
// a Const node (int32 when every value fits, else int64) named "<prefix>/Const...". Errors stick
// to the Scope (see scope.h); bad values are reported when the Session runs the node, naming it.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "engine/client/scope.h"

namespace fb::ops {

// A Const of int32 (int64 if a value does not fit) holding `values`: 1-D, or a scalar when
// `scalar` and values.size() == 1.
Output IntConst(const Scope& s, const std::vector<int64_t>& values, bool scalar = false);

// An int32/int64 operand: a graph tensor or constant values (see above).
class IntInput {
 public:
  IntInput(Output o) : output_(o), is_output_(true) {}                        // NOLINT
  IntInput(std::initializer_list<int64_t> v) : values_(v) {}                   // NOLINT
  IntInput(std::vector<int64_t> v) : values_(std::move(v)) {}                  // NOLINT
  IntInput(int64_t v) : values_{v} {}                                          // NOLINT
  IntInput(int v) : values_{v} {}                                              // NOLINT
  // The Output, or a Const of the values: a scalar when `scalar` and there is one value; int64
  // when `wide` or a value needs it.
  Output ToOutput(const Scope& s, bool scalar, bool wide = false) const;
  // Whether the operand is int64: an int64 Output, or values that do not fit int32.
  bool IsInt64() const;

 private:
  Output output_;
  std::vector<int64_t> values_;
  bool is_output_ = false;
};

// Shape, Rank and Size of x (out_type int32 or int64).
Output Shape(const Scope& s, Output x, DataType out_type = DataType::kInt32);
Output Rank(const Scope& s, Output x);
Output Size(const Scope& s, Output x, DataType out_type = DataType::kInt32);

// Views (no copy). `shape` may hold one -1; `dim` is in [-rank-1, rank].
Output Reshape(const Scope& s, Output x, IntInput shape);
Output ExpandDims(const Scope& s, Output x, IntInput dim);
// Removes the size-1 dims listed (all size-1 dims when empty).
Output Squeeze(const Scope& s, Output x, const std::vector<int64_t>& dims = {});

// y.shape[i] = x.shape[perm[i]].
Output Transpose(const Scope& s, Output x, IntInput perm);
Output InvertPermutation(const Scope& s, Output x);

// ConcatV2 of two or more values along `axis` (negative counts from the end).
Output Concat(const Scope& s, const std::vector<Output>& values, IntInput axis);
// Where each of the concatenated shapes starts in the result (Concat's gradient).
std::vector<Output> ConcatOffset(const Scope& s, Output concat_dim, const std::vector<Output>& shapes);
// `num_split` equal pieces along `axis`.
std::vector<Output> Split(const Scope& s, Output value, IntInput axis, int num_split);
// Stacks equal-shaped values along a new dimension `axis`, and the inverse.
Output Pack(const Scope& s, const std::vector<Output>& values, int64_t axis = 0);
std::vector<Output> Unpack(const Scope& s, Output value, int num, int64_t axis = 0);

// The box at `begin` of extent `size` (-1: to the end).
Output Slice(const Scope& s, Output x, IntInput begin, IntInput size);
// Zeros around x: paddings[i] = {before, after} for dimension i; or a [rank, 2] tensor.
Output Pad(const Scope& s, Output x, Output paddings);
Output Pad(const Scope& s, Output x, const std::vector<std::pair<int64_t, int64_t>>& paddings);

// Gather (axis 0) and GatherV2 (any axis) with int32/int64 indices.
Output Gather(const Scope& s, Output params, Output indices);
Output GatherV2(const Scope& s, Output params, Output indices, IntInput axis);
// One-hot encoding with a new dimension of `depth` at `axis` (-1: last).
Output OneHot(const Scope& s, Output indices, Output depth, Output on_value, Output off_value,
              int64_t axis = -1);
// float32 one-hot with on = 1, off = 0.
Output OneHot(const Scope& s, Output indices, int64_t depth, int64_t axis = -1);
// Scatter-add of data rows into num_segments rows by segment_ids (negative ids dropped).
Output UnsortedSegmentSum(const Scope& s, Output data, Output segment_ids, IntInput num_segments);

// The masks of StridedSlice: bit i of each applies to entry i of begin, end and strides.
struct StridedSliceMasks {
  int64_t begin_mask = 0;        // ignore begin[i]: from the start (the end for stride < 0)
  int64_t end_mask = 0;          // ignore end[i]: to the end (the start for stride < 0)
  int64_t ellipsis_mask = 0;     // entry i stands for the full dimensions not named (one bit)
  int64_t new_axis_mask = 0;     // entry i inserts a dimension of 1
  int64_t shrink_axis_mask = 0;  // entry i takes the index begin[i] and drops the dimension
};
// NumPy basic indexing, TensorFlow's StridedSlice: x[begin[0]:end[0]:strides[0], ...] with the
// masks above; negative indices count from the end. begin, end and strides become one dtype
// (int64 if any needs it). Bad specs fail when the Session runs the node, naming it.
Output StridedSlice(const Scope& s, Output x, IntInput begin, IntInput end, IntInput strides,
                    const StridedSliceMasks& masks = {});
// The gradient op: zeros of `shape` with dy at the elements StridedSlice takes.
Output StridedSliceGrad(const Scope& s, IntInput shape, IntInput begin, IntInput end,
                        IntInput strides, Output dy, const StridedSliceMasks& masks = {});

// x repeated multiples[i] times along each dimension i (one entry >= 0 per dimension).
Output Tile(const Scope& s, Output x, IntInput multiples);

// Elements of t where condition (bool) is true, of e elsewhere; condition is a scalar, has t's
// shape, or is a vector of t's first dimension selecting rows (TensorFlow 1's Select).
Output Select(const Scope& s, Output condition, Output t, Output e);
// int64 [N, rank] coordinates of the true (non-zero) elements of x, row-major order.
Output Where(const Scope& s, Output x);

// Identity that blocks gradients (4.1), and identity that fails on NaN/Inf (section 6).
Output StopGradient(const Scope& s, Output x);
Output CheckNumerics(const Scope& s, Output x, const std::string& message);

}  // namespace fb::ops
