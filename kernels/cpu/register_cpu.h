#pragma once
// Shorthand for the common registration of a CPU kernel whose type attr "T" is bound to T:
//   FB_REGISTER_CPU_T("Add", float, BinaryOp<float, Eigen::internal::scalar_sum_op<float>>);
#include "engine/framework/op_kernel.h"

#define FB_REGISTER_CPU_T(NAME, T, ...) \
  REGISTER_KERNEL(KernelDefBuilder(NAME).Device(DEVICE_CPU).TypeConstraint<T>("T"), __VA_ARGS__)
