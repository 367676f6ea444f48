#pragma once
// Launchers of the bias and Relu kernels (bias_relu_kernels.cu): BiasAdd, Relu, and the epilogue
// of the GPU _FusedConv2D (conv_ops.cc), which after cuDNN's or cuBLAS's convolution adds the
// bias and applies the Relu in one pass over the output instead of a BiasAdd and a Relu kernel.
// Simpler index math than the broadcasting LaunchBinary (one 32-bit modulo per element where the
// tensor allows) and no cuDNN call for the Relu. In the style of gpu_launch.h: plain device
// pointers, enqueued on `s`, returning at once (launch errors surface through
// cudaGetLastError). T = float, double.
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

// y[i] = x[i] + bias[i % depth] for the n values of x ([..., depth] row-major), then, if `relu`,
// max(y[i], 0) with NaN kept (as the CPU Relu). x may equal y (in place). Nothing for n == 0 or
// depth == 0.
template <typename T>
void LaunchBiasActivation(const T* x, const T* bias, int64_t n, int64_t depth, bool relu, T* y,
                          cudaStream_t s);

// y[i] = max(x[i], 0), NaN kept (as the CPU Relu), for n values; x may equal y.
template <typename T>
void LaunchRelu(const T* x, int64_t n, T* y, cudaStream_t s);

}  // namespace fb::gpu
