#pragma once
// Launcher of the epilogue of the GPU _FusedConv2D (conv_ops.cc; fused_conv_kernels.cu): after
// cuDNN's convolution, the bias and the Relu in one pass over the output instead of a BiasAdd
// and a Relu kernel (two passes). In the style of gpu_launch.h: plain device pointers, enqueued
// on `s`, returning at once (launch errors surface through cudaGetLastError).
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

// y[i] = y[i] + bias[i % depth] for the n values of y ([..., depth] row-major), then, if `relu`,
// max(y[i], 0) with NaN kept (as the CPU Relu). In place. T = float, double; depth > 0.
template <typename T>
void LaunchBiasActivation(const T* bias, int64_t n, int64_t depth, bool relu, T* y,
                          cudaStream_t s);

}  // namespace fb::gpu
