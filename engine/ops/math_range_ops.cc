// Range of whitepaper Table 1 (TensorFlow's math_ops.cc Range): the sequence start, start +
// delta, ... up to but excluding limit, for int32, int64, float and double. The count rule
// (RangeSize) is shared with the kernel, kernels/cpu/range_kernels.cc. No gradient (as
// TensorFlow): the output depends on its inputs only through its length.
#include <cmath>
#include <limits>

#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"
#include "engine/ops/math_range_util.h"

namespace fb {
namespace {

template <typename T>
StatusOr<int64_t> TypedRangeSize(T start, T limit, T delta, size_t element_bytes) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
      return InvalidArgument("start, limit and delta must be finite, got ", start, ", ", limit,
                             " and ", delta);
  }
  if (delta == T(0)) return InvalidArgument("delta must not be 0");
  if (delta > T(0) && start > limit)
    return InvalidArgument("start ", start, " must be <= limit ", limit, " when delta ", delta,
                           " is positive");
  if (delta < T(0) && start < limit)
    return InvalidArgument("start ", start, " must be >= limit ", limit, " when delta ", delta,
                           " is negative");
  const int64_t max_count = std::numeric_limits<int64_t>::max() / element_bytes;
  if constexpr (std::is_floating_point_v<T>) {
    // In T, as TensorFlow, so that float ranges have TensorFlow's lengths.
    const double count = std::ceil(std::abs((limit - start) / delta));
    if (!(count <= static_cast<double>(max_count)))
      return InvalidArgument("Range from ", start, " to ", limit, " by ", delta, " has ", count,
                             " elements, more than the limit of ", max_count);
    return static_cast<int64_t>(count);
  } else {
    // |limit - start| and |delta| fit in 128 bits whatever the 64-bit values.
    const __int128 span = static_cast<__int128>(limit) - start;
    const __int128 step = delta;
    const __int128 abs_span = span < 0 ? -span : span, abs_step = step < 0 ? -step : step;
    const __int128 count = (abs_span + abs_step - 1) / abs_step;
    if (count > max_count)
      return InvalidArgument("Range from ", start, " to ", limit, " by ", delta, " has ",
                             static_cast<uint64_t>(count), " elements, more than the limit of ",
                             max_count);
    return static_cast<int64_t>(count);
  }
}

template <typename T>
StatusOr<int64_t> RangeSizeOf(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  return TypedRangeSize<T>(*start.data<T>(), *limit.data<T>(), *delta.data<T>(), sizeof(T));
}

}  // namespace

StatusOr<int64_t> RangeSize(const Tensor& start, const Tensor& limit, const Tensor& delta) {
  const char* names[] = {"start", "limit", "delta"};
  const Tensor* values[] = {&start, &limit, &delta};
  for (int i = 0; i < 3; ++i) {
    if (values[i]->dims() != 0)
      return InvalidArgument(names[i], " must be a scalar, got shape ",
                             values[i]->shape().DebugString());
    if (values[i]->dtype() != start.dtype())
      return InvalidArgument(names[i], " must be ", DataTypeString(start.dtype()), ", got ",
                             DataTypeString(values[i]->dtype()));
  }
  switch (start.dtype()) {
    case DataType::kInt32:
      return RangeSizeOf<int32_t>(start, limit, delta);
    case DataType::kInt64:
      return RangeSizeOf<int64_t>(start, limit, delta);
    case DataType::kFloat:
      return RangeSizeOf<float>(start, limit, delta);
    case DataType::kDouble:
      return RangeSizeOf<double>(start, limit, delta);
    default:
      return InvalidArgument("Range takes int32, int64, float or double, got ",
                             DataTypeString(start.dtype()));
  }
}

namespace {

Status RangeShapeFn(InferenceContext* c) {
  for (int i = 0; i < 3; ++i) RETURN_IF_ERROR(c->WithRank(i, 0));
  const Tensor *start = c->input_tensor(0), *limit = c->input_tensor(1),
               *delta = c->input_tensor(2);
  if (!start || !limit || !delta) {
    c->set_output(0, TensorShape{-1});
    return Status::OK();
  }
  auto size = RangeSize(*start, *limit, *delta);
  if (!size.ok()) return c->Error(size.status().message());
  c->set_output(0, TensorShape{*size});
  return Status::OK();
}

}  // namespace

REGISTER_OP("Range")
    .Input("start: Tidx")
    .Input("limit: Tidx")
    .Input("delta: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {int32, int64, float, double} = \"int32\"")
    .SetShapeFn(RangeShapeFn)
    .Doc(
        "The 1-D sequence start, start + delta, ... of ceil(|limit - start| / |delta|) values, "
        "excluding limit (TensorFlow's Range). Scalars start, limit, delta; InvalidArgument "
        "when delta is 0, points away from limit, a float input is not finite, or the count "
        "overflows int64.");

}  // namespace fb
