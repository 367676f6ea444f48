#pragma once
// Fill's input checks (engine/ops/math_autodiff_ops.cc), shared by the CPU kernel
// (kernels/cpu/fill_kernels.cc) and the GPU one (kernels/cuda/fill_ops.cc) so that both fail
// with the same messages.
#include "engine/framework/tensor.h"
#include "engine/ops/math_reduction_util.h"

namespace fb {

// Fill(dims, value)'s output shape: `dims` (a host int32/int64 tensor) must be a vector of
// valid sizes and `value` a scalar; InvalidArgument naming the input otherwise.
inline StatusOr<TensorShape> FillShape(const Tensor& dims, const Tensor& value) {
  if (dims.dims() != 1)
    return InvalidArgument("dims must be a vector, got shape ", dims.shape().DebugString());
  if (value.dims() != 0)
    return InvalidArgument("value must be a scalar, got shape ", value.shape().DebugString());
  ASSIGN_OR_RETURN(std::vector<int64_t> sizes, IndexValues(dims, "dims"));
  RETURN_IF_ERROR(ValidateShape(sizes, "dims"));
  return TensorShape(sizes);
}

}  // namespace fb
