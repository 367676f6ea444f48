// The bias checks shared by the CPU and GPU kernels of BiasAdd and _FusedConv2D, so that both
// devices refuse the same inputs with the same message.
#pragma once

#include "engine/framework/status.h"
#include "engine/framework/tensor_shape.h"

namespace fb {

// BiasAdd (NHWC): value at least 2-D [..., C], bias [C]. InvalidArgument naming both shapes.
inline Status CheckBiasAddShapes(const TensorShape& value, const TensorShape& bias) {
  if (value.dims() < 2)
    return InvalidArgument("value must be at least 2-D, got shape ", value.DebugString());
  if (bias.dims() != 1 || bias.dim_size(0) != value.dim_size(value.dims() - 1))
    return InvalidArgument("bias must be 1-D of the last dimension of value ",
                           value.DebugString(), ", got shape ", bias.DebugString());
  return Status::OK();
}

// _FusedConv2D's bias: 1-D of the filter's out_depth. InvalidArgument naming both.
inline Status CheckConvBiasShape(const TensorShape& bias, int64_t out_depth) {
  if (bias.dims() != 1 || bias.dim_size(0) != out_depth)
    return InvalidArgument("bias must be 1-D of the filter's out_depth ", out_depth,
                           ", got shape ", bias.DebugString());
  return Status::OK();
}

}  // namespace fb
