#pragma once
// Helpers of the GPU state, fill, cast and loss kernels for inputs that may be in host memory
// (an int32 Const is, see state_ops.cc; so is any output the executor keeps in host memory for a
// HostMemory arg) or in GPU memory.
#include "engine/framework/op_kernel.h"
#include "kernels/cuda/gpu_device.h"

namespace fb::gpu {

// Whether `t`'s buffer is device memory (a tensor without an allocator is a host tensor).
inline bool IsGpuMemory(const Tensor& t) {
  return t.allocator() != nullptr && !t.allocator()->IsHostMemory();
}

// Input i in this GPU's memory: returned as it is when it already is, else copied there (queued
// on the host-to-device stream, which the compute stream waits for; no host wait). Errors: those
// of GpuDevice::CopyFromHost (ResourceExhausted, InvalidArgument for strings).
inline StatusOr<Tensor> InputOnGpu(OpKernelContext* ctx, int i) {
  return GpuOf(ctx)->CopyFromHost(ctx->input(i));
}

// A new GPU tensor holding a copy of `t` (host or GPU memory), copied on the compute stream (or
// the host-to-device stream for host tensors). ResourceExhausted when GPU memory runs out.
StatusOr<Tensor> CopyToNewGpuTensor(OpKernelContext* ctx, const Tensor& t);

}  // namespace fb::gpu
