#pragma once
// Helpers shared by the GPU op kernels: registration shorthand, reading small "host memory"
// inputs (axes, shapes) that arrive in GPU memory, and the broadcast description for the
// element-wise launchers.
#include <vector>

#include "engine/framework/op_kernel.h"
#include "kernels/cuda/gpu_device.h"
#include "kernels/cuda/gpu_launch.h"

// Registers Kernel<float> (and Kernel<double> with the _FD variant) for GPU op `op`, type attr T.
#define FB_REGISTER_GPU_T(op, T, ...) \
  REGISTER_KERNEL(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint<T>("T"), __VA_ARGS__)
#define FB_REGISTER_GPU_FD(op, Kernel)   \
  FB_REGISTER_GPU_T(op, float, Kernel<float>); \
  FB_REGISTER_GPU_T(op, double, Kernel<double>)
// The same with input `host_arg` (a shape or sizes argument) declared HostMemory.
#define FB_REGISTER_GPU_FD_HOST(op, Kernel, host_arg)                                         \
  REGISTER_KERNEL(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint<float>("T")         \
                      .HostMemory(host_arg),                                                 \
                  Kernel<float>);                                                            \
  REGISTER_KERNEL(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint<double>("T")        \
                      .HostMemory(host_arg),                                                 \
                  Kernel<double>)

namespace fb::gpu {

// Input i as a host tensor. Small int inputs (reduction axes, shapes, sizes) are declared
// HostMemory in the kernel registrations, so the executor delivers them in host memory and this
// returns them as they are; a kernel run directly with a GPU-memory input gets a copy (waiting
// for it, a few bytes).
inline StatusOr<Tensor> HostInput(OpKernelContext* ctx, int i) {
  return GpuOf(ctx)->CopyToHost(ctx->input(i));
}

// The launcher's view of a BCast (InvalidArgument past kMaxBroadcastDims collapsed dims).
Status ToBroadcastShape(const TensorShape& x, const TensorShape& y, TensorShape* out_shape,
                        BroadcastShape* b);

// A writable copy of a variable's GPU tensor when a reader still holds its buffer (the GPU
// counterpart of Var::PrepareForWrite, which copies with memcpy). Requires var->mu() held.
Status PrepareGpuVarForWrite(OpKernelContext* ctx, Var* var);

}  // namespace fb::gpu
