#pragma once
// The element count of Range(start, limit, delta) (engine/ops/math_range_ops.cc), shared by its
// shape function and its CPU kernel so that graph-time and run-time errors read the same.
#include <cstdint>

#include "engine/framework/tensor.h"

namespace fb {

// The number of values start, start + delta, ... strictly before limit (TensorFlow's Range):
// ceil(|limit - start| / |delta|), computed without overflow. start, limit and delta are scalars
// of one dtype (int32, int64, float, double). InvalidArgument when one is not a scalar, delta
// is 0, delta points away from limit ("start 5 must be <= limit 1 when delta 1 is positive"), a
// float value is NaN or infinite, or the count (times the element size) exceeds int64.
StatusOr<int64_t> RangeSize(const Tensor& start, const Tensor& limit, const Tensor& delta);

}  // namespace fb
