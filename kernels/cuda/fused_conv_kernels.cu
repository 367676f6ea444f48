// CUDA kernel of fused_conv_launch.h: the bias + Relu epilogue of _FusedConv2D. A grid-stride
// loop (grid_loop.cuh); 32-bit indices when the tensor allows, since the channel of each element
// is an index modulo depth and 64-bit division costs several times more instructions than a
// 32-bit one in a kernel that should be bound by memory.
#include <cstdint>

#include "kernels/cuda/fused_conv_launch.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

template <typename T, typename Index, bool kRelu>
__global__ void BiasActivationKernel(const T* bias, Index n, Index depth, T* y) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += static_cast<Index>(blockDim.x) * gridDim.x) {
    T v = y[i] + bias[i % depth];
    if (kRelu && !(v > T(0)) && v == v) v = T(0);  // Relu(NaN) = NaN
    y[i] = v;
  }
}

template <typename T, typename Index>
void Launch(const T* bias, int64_t n, int64_t depth, bool relu, T* y, cudaStream_t s) {
  if (relu)
    BiasActivationKernel<T, Index, true><<<Blocks(n), kThreads, 0, s>>>(
        bias, static_cast<Index>(n), static_cast<Index>(depth), y);
  else
    BiasActivationKernel<T, Index, false><<<Blocks(n), kThreads, 0, s>>>(
        bias, static_cast<Index>(n), static_cast<Index>(depth), y);
}

}  // namespace

template <typename T>
void LaunchBiasActivation(const T* bias, int64_t n, int64_t depth, bool relu, T* y,
                          cudaStream_t s) {
  if (n <= 0 || depth <= 0) return;
  // The 32-bit loop's i + stride stays below 2^32 when n + the grid's threads does.
  const int64_t grid_threads = int64_t{Blocks(n)} * kThreads;
  if (n + grid_threads <= int64_t{UINT32_MAX}) Launch<T, uint32_t>(bias, n, depth, relu, y, s);
  else Launch<T, int64_t>(bias, n, depth, relu, y, s);
}

template void LaunchBiasActivation<float>(const float*, int64_t, int64_t, bool, float*,
                                          cudaStream_t);
template void LaunchBiasActivation<double>(const double*, int64_t, int64_t, bool, double*,
                                           cudaStream_t);

}  // namespace fb::gpu
