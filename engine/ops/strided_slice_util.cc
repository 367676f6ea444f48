#include "engine/ops/strided_slice_util.h"

#include <algorithm>

#include "engine/ops/array_shape_util.h"

namespace fb {
namespace {

constexpr int64_t kNewAxis = -1, kShrinkAxis = -2;

bool Bit(int64_t mask, int i) { return i < 64 && ((static_cast<uint64_t>(mask) >> i) & 1) != 0; }

// The spec expanded to one entry per input dimension, with its masks per input dimension.
struct DenseSpec {
  std::vector<int64_t> begin, end, strides;
  std::vector<bool> begin_masked, end_masked, shrink;
  // Per output dimension: the input dimension it comes from, or kNewAxis.
  std::vector<int64_t> gather;
};

// TensorFlow's BuildDenseSpec. Without an ellipsis the spec gets one at its end.
StatusOr<DenseSpec> BuildDense(int rank, const std::vector<int64_t>& begin,
                               const std::vector<int64_t>& end, const std::vector<int64_t>& strides,
                               StridedSliceMasks m) {
  int sparse_dims = static_cast<int>(begin.size());
  bool has_ellipsis = false;
  for (int i = 0; i < sparse_dims; ++i) has_ellipsis |= Bit(m.ellipsis, i);
  if (!has_ellipsis) m.ellipsis |= int64_t{1} << sparse_dims++;  // sparse_dims <= 63 here
  int ellipsis_at = 0, new_after = 0;
  while (!Bit(m.ellipsis, ellipsis_at)) ++ellipsis_at;
  for (int i = ellipsis_at + 1; i < sparse_dims; ++i)
    if (Bit(m.new_axis, i) && !Bit(m.ellipsis, i)) ++new_after;
  DenseSpec d;
  d.begin.assign(rank, 0), d.end.assign(rank, 0), d.strides.assign(rank, 1);
  d.begin_masked.assign(rank, false), d.end_masked.assign(rank, false),
      d.shrink.assign(rank, false);
  int full = 0;
  for (int i = 0; i < sparse_dims; ++i) {
    if (Bit(m.ellipsis, i)) {
      const int next = std::min(rank - (sparse_dims - i) + 1 + new_after, rank);
      for (; full < next; ++full) {
        d.begin_masked[full] = d.end_masked[full] = true;
        d.gather.push_back(full);
      }
    } else if (Bit(m.new_axis, i)) {
      d.gather.push_back(kNewAxis);
    } else {
      if (full == rank)
        return InvalidArgument("the slice spec names more dimensions than the input's ", rank,
                               " (index ", i, " of begin ", IntListString(begin), ")");
      d.begin[full] = begin[i], d.end[full] = end[i], d.strides[full] = strides[i];
      d.begin_masked[full] = Bit(m.begin, i);
      d.end_masked[full] = Bit(m.end, i);
      d.shrink[full] = Bit(m.shrink_axis, i);
      d.gather.push_back(d.shrink[full] ? kShrinkAxis : full);
      ++full;
    }
  }
  return d;
}

// Python-slice canonicalisation of an index into a dimension of size `dim` (c: 0 begin, 1 end).
int64_t Canonical(int64_t x, int c, bool masked, int64_t stride, int64_t dim) {
  const int64_t lo = stride > 0 ? 0 : -1, hi = stride > 0 ? dim : dim - 1;
  if (masked) return stride > 0 ? (c == 0 ? lo : hi) : (c == 0 ? hi : lo);
  const int64_t fwd = x < 0 ? dim + x : x;
  return std::clamp(fwd, lo, hi);
}

}  // namespace

StatusOr<StridedSliceDense> ResolveStridedSlice(const TensorShape& input,
                                                const std::vector<int64_t>& begin,
                                                const std::vector<int64_t>& end,
                                                const std::vector<int64_t>& strides,
                                                const StridedSliceMasks& masks) {
  if (begin.size() != end.size() || begin.size() != strides.size())
    return InvalidArgument("begin, end and strides must have the same length, got ",
                           IntListString(begin), ", ", IntListString(end), " and ",
                           IntListString(strides));
  if (begin.size() > 63)
    return InvalidArgument("the slice spec has ", begin.size(), " entries, more than 63");
  if (masks.ellipsis & (masks.ellipsis - 1))
    return InvalidArgument("ellipsis_mask ", masks.ellipsis, " has more than one bit set");
  ASSIGN_OR_RETURN(DenseSpec d, BuildDense(input.rank(), begin, end, strides, masks));
  StridedSliceDense out;
  out.is_identity = input.IsFullyDefined();
  for (int i = 0; i < input.rank(); ++i) {
    const int64_t dim = input.dim_size(i), stride = d.strides[i];
    if (stride == 0) return InvalidArgument("strides[", i, "] must be non-zero");
    int64_t b = d.begin[i], size;
    if (d.shrink[i]) {
      if (stride < 0)
        return InvalidArgument("strides[", i, "] = ", stride,
                               ": a shrunk dimension (an index, "
                               "not a range) takes a positive stride");
      if (dim >= 0) {
        const int64_t fwd = b < 0 ? dim + b : b;
        if (fwd < 0 || fwd >= dim)
          return InvalidArgument("slice index ", b, " of dimension ", i,
                                 " out of bounds for input of shape ", input.DebugString());
        b = fwd;
      }
      size = 1;
      d.strides[i] = 1;
    } else if (dim < 0) {
      size = -1;
    } else {
      b = Canonical(b, 0, d.begin_masked[i], stride, dim);
      const int64_t e = Canonical(d.end[i], 1, d.end_masked[i], stride, dim);
      const int64_t len = e - b;
      size = len == 0 || ((len < 0) != (stride < 0)) ? 0 : len / stride + (len % stride != 0);
    }
    out.begin.push_back(b);
    out.strides.push_back(d.strides[i]);
    out.processing_shape.AddDim(size);
    out.is_identity &= b == 0 && d.strides[i] == 1 && size == dim;
  }
  for (int64_t g : d.gather) {
    if (g == kNewAxis)
      out.final_shape.AddDim(1);
    else if (g >= 0)
      out.final_shape.AddDim(out.processing_shape.dim_size(static_cast<int>(g)));
  }
  return out;
}

}  // namespace fb
