// CUDA kernels of bias_relu_launch.h: BiasAdd (+ Relu) and Relu. Grid-stride loops
// (grid_loop.cuh); 32-bit indices when the tensor allows, since the channel of each element is an
// index modulo depth and 64-bit division costs several times more instructions than a 32-bit one
// in kernels that should be bound by memory.
#include <cstdint>

#include "kernels/cuda/bias_relu_launch.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

// max(v, 0) with Relu(NaN) = NaN, as kernels/cpu.
template <typename T>
__device__ T Relu(T v) {
  return (v > T(0) || v != v) ? v : T(0);
}

template <typename T, typename Index, bool kRelu>
__global__ void BiasActivationKernel(const T* x, const T* bias, Index n, Index depth, T* y) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x) {
    const T v = x[i] + bias[i % depth];
    y[i] = kRelu ? Relu(v) : v;
  }
}

template <typename T>
__global__ void ReluKernel(const T* x, int64_t n, T* y) {
  FB_GRID_LOOP(i, n) y[i] = Relu(x[i]);
}

template <typename T, typename Index>
void LaunchBias(const T* x, const T* bias, int64_t n, int64_t depth, bool relu, T* y,
                cudaStream_t s) {
  const Index nn = static_cast<Index>(n), d = static_cast<Index>(depth);
  if (relu) BiasActivationKernel<T, Index, true><<<Blocks(n), kThreads, 0, s>>>(x, bias, nn, d, y);
  else BiasActivationKernel<T, Index, false><<<Blocks(n), kThreads, 0, s>>>(x, bias, nn, d, y);
}

}  // namespace

template <typename T>
void LaunchBiasActivation(const T* x, const T* bias, int64_t n, int64_t depth, bool relu, T* y,
                          cudaStream_t s) {
  if (n <= 0 || depth <= 0) return;
  // The 32-bit loop's i + stride stays below 2^32 when n + the grid's thread count does.
  const int64_t grid_threads = int64_t{Blocks(n)} * kThreads;
  if (n + grid_threads <= int64_t{UINT32_MAX})
    LaunchBias<T, uint32_t>(x, bias, n, depth, relu, y, s);
  else
    LaunchBias<T, int64_t>(x, bias, n, depth, relu, y, s);
}

template <typename T>
void LaunchRelu(const T* x, int64_t n, T* y, cudaStream_t s) {
  if (n > 0) ReluKernel<T><<<Blocks(n), kThreads, 0, s>>>(x, n, y);
}

#define FB_INSTANTIATE_BIAS_RELU(T)                                                           \
  template void LaunchBiasActivation<T>(const T*, const T*, int64_t, int64_t, bool, T*,       \
                                        cudaStream_t);                                        \
  template void LaunchRelu<T>(const T*, int64_t, T*, cudaStream_t);
FB_INSTANTIATE_BIAS_RELU(float)
FB_INSTANTIATE_BIAS_RELU(double)
#undef FB_INSTANTIATE_BIAS_RELU

}  // namespace fb::gpu
