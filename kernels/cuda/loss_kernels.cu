// CUDA kernel of SparseSoftmaxCrossEntropyWithLogits (launcher in state_launch.h): one
// 256-thread block per row (grid-stride over rows), the row's maximum and sum of exp(x - max)
// reduced in shared memory, then loss and backprop as the CPU kernel computes them
// (kernels/cpu/softmax_kernels.cc). Labels out of range are recorded in device memory for the
// op kernel to report; nothing here waits for the host.
#include <cstdint>

#include "kernels/cuda/grid_loop.cuh"
#include "kernels/cuda/state_launch.h"

namespace fb::gpu {
namespace {

constexpr int64_t kNoBadRow = INT64_MAX;

// Reduces `v` over the block with max (kMax) or sum; every thread gets the result.
template <typename T, bool kMax>
__device__ T BlockReduce(T v, T* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      const T a = shared[threadIdx.x], b = shared[threadIdx.x + w];
      shared[threadIdx.x] = kMax ? (a > b ? a : b) : a + b;
    }
    __syncthreads();
  }
  const T r = shared[0];
  __syncthreads();  // shared is reused right after
  return r;
}

__global__ void InitBadKernel(int64_t* bad) {
  bad[0] = kNoBadRow;
  bad[1] = 0;
}

template <typename T, typename Index>
__global__ void SparseXentKernel(const T* features, const Index* labels, T* loss, T* backprop,
                                 int64_t batch, int64_t classes, int64_t* bad) {
  __shared__ T shared[kThreads];
  for (int64_t row = blockIdx.x; row < batch; row += gridDim.x) {
    const T* x = features + row * classes;
    T* g = backprop + row * classes;
    const int64_t label = static_cast<int64_t>(labels[row]);
    const bool valid = label >= 0 && label < classes;
    T m = -INFINITY;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) m = x[c] > m ? x[c] : m;
    m = BlockReduce<T, true>(m, shared);
    T sum = 0;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) sum += exp(x[c] - m);
    sum = BlockReduce<T, false>(sum, shared);
    const T log_sum = log(sum);
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x)
      g[c] = valid ? exp(x[c] - m - log_sum) - (c == label ? T(1) : T(0)) : T(NAN);
    if (threadIdx.x == 0) {
      loss[row] = valid ? log_sum - (x[label] - m) : T(NAN);
      if (!valid) atomicMin(reinterpret_cast<long long*>(bad), static_cast<long long>(row));
    }
  }
}

// bad[0]: the smallest bad row, or -1; bad[1]: its label.
template <typename Index>
__global__ void FinishBadKernel(const Index* labels, int64_t* bad) {
  if (bad[0] == kNoBadRow) {
    bad[0] = -1;
  } else {
    bad[1] = static_cast<int64_t>(labels[bad[0]]);
  }
}

}  // namespace

template <typename T, typename Index>
void LaunchSparseSoftmaxXent(const T* features, const Index* labels, T* loss, T* backprop,
                             int64_t batch, int64_t classes, int64_t* bad, cudaStream_t s) {
  InitBadKernel<<<1, 1, 0, s>>>(bad);
  if (batch > 0) {
    const int64_t blocks = batch < kMaxBlocks ? batch : kMaxBlocks;
    SparseXentKernel<<<static_cast<int>(blocks), kThreads, 0, s>>>(features, labels, loss,
                                                                    backprop, batch, classes, bad);
  }
  FinishBadKernel<<<1, 1, 0, s>>>(labels, bad);
}

#define FB_INSTANTIATE(T, Index)                                                               \
  template void LaunchSparseSoftmaxXent<T, Index>(const T*, const Index*, T*, T*, int64_t,     \
                                                  int64_t, int64_t*, cudaStream_t);
FB_INSTANTIATE(float, int32_t)
FB_INSTANTIATE(float, int64_t)
FB_INSTANTIATE(double, int32_t)
FB_INSTANTIATE(double, int64_t)
#undef FB_INSTANTIATE

}  // namespace fb::gpu
