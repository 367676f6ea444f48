#include "engine/client/array_ops.h"

#include <limits>

#include "engine/client/state_ops.h"

namespace fb::ops {

namespace {

// The outputs of `n` (empty when building failed; the Scope holds the error).
std::vector<Output> Outputs(Node* n) {
  std::vector<Output> outs;
  if (n)
    for (int i = 0; i < n->num_outputs(); ++i) outs.emplace_back(n, i);
  return outs;
}

bool FitsInt32(const std::vector<int64_t>& values) {
  for (int64_t v : values)
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
      return false;
  return true;
}

// An int32 tensor, or int64 when `wide`.
Tensor IntTensor(const std::vector<int64_t>& values, const TensorShape& shape, bool wide) {
  if (wide) return Tensor::FromVector<int64_t>(values, shape);
  return Tensor::FromVector<int32_t>({values.begin(), values.end()}, shape);
}

// A Const in a sub-scope without the op name: the name given by WithOpName belongs to the op.
Output ConstOf(const Scope& s, const Tensor& t) { return Const(s.NewSubScope(""), t); }

TensorShape VectorShape(const std::vector<int64_t>& v) {
  return TensorShape{static_cast<int64_t>(v.size())};
}

}  // namespace

Output IntConst(const Scope& s, const std::vector<int64_t>& values, bool scalar) {
  TensorShape shape = scalar && values.size() == 1 ? TensorShape{} : VectorShape(values);
  return ConstOf(s, IntTensor(values, shape, !FitsInt32(values)));
}

Output IntInput::ToOutput(const Scope& s, bool scalar, bool wide) const {
  if (is_output_) return output_;
  TensorShape shape = scalar && values_.size() == 1 ? TensorShape{} : VectorShape(values_);
  return ConstOf(s, IntTensor(values_, shape, wide || IsInt64()));
}

bool IntInput::IsInt64() const {
  return is_output_ ? output_.type() == DataType::kInt64 : !FitsInt32(values_);
}

Output Shape(const Scope& s, Output x, DataType out_type) {
  return Op(s, "Shape", {x}, {{"out_type", out_type}});
}
Output Rank(const Scope& s, Output x) { return Op(s, "Rank", {x}); }
Output Size(const Scope& s, Output x, DataType out_type) {
  return Op(s, "Size", {x}, {{"out_type", out_type}});
}

Output Reshape(const Scope& s, Output x, IntInput shape) {
  return Op(s, "Reshape", {x, shape.ToOutput(s, false)});
}
Output ExpandDims(const Scope& s, Output x, IntInput dim) {
  return Op(s, "ExpandDims", {x, dim.ToOutput(s, true)});
}
Output Squeeze(const Scope& s, Output x, const std::vector<int64_t>& dims) {
  return Op(s, "Squeeze", {x}, {{"squeeze_dims", dims}});
}

Output Transpose(const Scope& s, Output x, IntInput perm) {
  return Op(s, "Transpose", {x, perm.ToOutput(s, false)});
}
Output InvertPermutation(const Scope& s, Output x) { return Op(s, "InvertPermutation", {x}); }

Output Concat(const Scope& s, const std::vector<Output>& values, IntInput axis) {
  Node* n = AddOpWithList(s, "ConcatV2", {values, {axis.ToOutput(s, true)}});
  return n ? Output(n, 0) : Output();
}
std::vector<Output> ConcatOffset(const Scope& s, Output concat_dim,
                                 const std::vector<Output>& shapes) {
  return Outputs(AddOpWithList(s, "ConcatOffset", {{concat_dim}, shapes}));
}
// Split's split_dim is always int32.
std::vector<Output> Split(const Scope& s, Output value, IntInput axis, int num_split) {
  return Outputs(AddOp(s, "Split", {axis.ToOutput(s, true), value}, {{"num_split", num_split}}));
}
Output Pack(const Scope& s, const std::vector<Output>& values, int64_t axis) {
  Node* n = AddOpWithList(s, "Pack", {values}, {{"axis", axis}});
  return n ? Output(n, 0) : Output();
}
std::vector<Output> Unpack(const Scope& s, Output value, int num, int64_t axis) {
  return Outputs(AddOp(s, "Unpack", {value}, {{"num", num}, {"axis", axis}}));
}

Output Slice(const Scope& s, Output x, IntInput begin, IntInput size) {
  // begin and size share the Index dtype: int64 for both when either is int64.
  const bool wide = begin.IsInt64() || size.IsInt64();
  return Op(s, "Slice", {x, begin.ToOutput(s, false, wide), size.ToOutput(s, false, wide)});
}
Output Pad(const Scope& s, Output x, Output paddings) { return Op(s, "Pad", {x, paddings}); }
Output Pad(const Scope& s, Output x, const std::vector<std::pair<int64_t, int64_t>>& paddings) {
  std::vector<int64_t> flat;
  for (const auto& [before, after] : paddings) flat.push_back(before), flat.push_back(after);
  TensorShape shape{static_cast<int64_t>(paddings.size()), 2};
  return Pad(s, x, ConstOf(s, IntTensor(flat, shape, !FitsInt32(flat))));
}

Output Gather(const Scope& s, Output params, Output indices) {
  return Op(s, "Gather", {params, indices});
}
Output GatherV2(const Scope& s, Output params, Output indices, IntInput axis) {
  return Op(s, "GatherV2", {params, indices, axis.ToOutput(s, true)});
}
Output OneHot(const Scope& s, Output indices, Output depth, Output on_value, Output off_value,
              int64_t axis) {
  return Op(s, "OneHot", {indices, depth, on_value, off_value}, {{"axis", axis}});
}
Output OneHot(const Scope& s, Output indices, int64_t depth, int64_t axis) {
  return OneHot(s, indices, ConstOf(s, Tensor::Scalar<int32_t>(static_cast<int32_t>(depth))),
                ConstOf(s, Tensor::Scalar<float>(1.0f)), ConstOf(s, Tensor::Scalar<float>(0.0f)),
                axis);
}
Output UnsortedSegmentSum(const Scope& s, Output data, Output segment_ids, IntInput num_segments) {
  return Op(s, "UnsortedSegmentSum", {data, segment_ids, num_segments.ToOutput(s, true)});
}

Output StopGradient(const Scope& s, Output x) { return Op(s, "StopGradient", {x}); }
Output CheckNumerics(const Scope& s, Output x, const std::string& message) {
  return Op(s, "CheckNumerics", {x}, {{"message", message}});
}

namespace {
AttrMap MaskAttrs(const StridedSliceMasks& m) {
  return {{"begin_mask", m.begin_mask},
          {"end_mask", m.end_mask},
          {"ellipsis_mask", m.ellipsis_mask},
          {"new_axis_mask", m.new_axis_mask},
          {"shrink_axis_mask", m.shrink_axis_mask}};
}
}  // namespace

Output StridedSlice(const Scope& s, Output x, IntInput begin, IntInput end, IntInput strides,
                    const StridedSliceMasks& masks) {
  const bool wide = begin.IsInt64() || end.IsInt64() || strides.IsInt64();
  return Op(s, "StridedSlice",
            {x, begin.ToOutput(s, false, wide), end.ToOutput(s, false, wide),
             strides.ToOutput(s, false, wide)},
            MaskAttrs(masks));
}

Output StridedSliceGrad(const Scope& s, IntInput shape, IntInput begin, IntInput end,
                        IntInput strides, Output dy, const StridedSliceMasks& masks) {
  const bool wide = shape.IsInt64() || begin.IsInt64() || end.IsInt64() || strides.IsInt64();
  return Op(s, "StridedSliceGrad",
            {shape.ToOutput(s, false, wide), begin.ToOutput(s, false, wide),
             end.ToOutput(s, false, wide), strides.ToOutput(s, false, wide), dy},
            MaskAttrs(masks));
}

Output Tile(const Scope& s, Output x, IntInput multiples) {
  return Op(s, "Tile", {x, multiples.ToOutput(s, false)});
}

Output Select(const Scope& s, Output condition, Output t, Output e) {
  return Op(s, "Select", {condition, t, e});
}
Output Where(const Scope& s, Output x) { return Op(s, "Where", {x}); }

}  // namespace fb::ops
