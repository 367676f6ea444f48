// Reduction CUDA kernels: Sum/Max/Min over the middle axis of [outer, r, inner] (the reduction
// ops collapse any axis set into passes of this form, like the CPU kernels), and the row-wise
// SoftmaxCrossEntropyWithLogits. Rows (inner == 1) are reduced by one 256-thread block each with
// a shared-memory tree; otherwise each thread owns one output column and walks r (coalesced
// across inner).
#include <cfloat>

#include "kernels/cuda/gpu_launch.h"

namespace fb::gpu {
namespace {

constexpr int kThreads = 256;

template <typename T>
__device__ T Identity(ReduceFn fn) {
  if (fn == ReduceFn::kSum) return T(0);
  return fn == ReduceFn::kMax ? -INFINITY : INFINITY;
}

template <typename T>
__device__ T Combine(ReduceFn fn, T a, T b) {
  if (fn == ReduceFn::kSum) return a + b;
  if (fn == ReduceFn::kMax) return a > b ? a : b;
  return a < b ? a : b;
}

// Reduces `v` over the block; the result is valid in thread 0.
template <typename T>
__device__ T BlockReduce(ReduceFn fn, T v, T* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) shared[threadIdx.x] = Combine(fn, shared[threadIdx.x], shared[threadIdx.x + s]);
    __syncthreads();
  }
  T r = shared[0];
  __syncthreads();  // shared may be reused right after
  return r;
}

template <typename T>
__global__ void ReduceRowsKernel(ReduceFn fn, const T* in, T* out, int64_t r, T scale) {
  __shared__ T shared[kThreads];
  const T* row = in + blockIdx.x * r;
  T acc = Identity<T>(fn);
  for (int64_t k = threadIdx.x; k < r; k += blockDim.x) acc = Combine(fn, acc, row[k]);
  acc = BlockReduce(fn, acc, shared);
  if (threadIdx.x == 0) out[blockIdx.x] = acc * scale;
}

template <typename T>
__global__ void ReduceColumnsKernel(ReduceFn fn, const T* in, T* out, int64_t outer, int64_t r,
                                    int64_t inner, T scale) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < outer * inner;
       i += int64_t{blockDim.x} * gridDim.x) {
    const int64_t o = i / inner, c = i % inner;
    const T* p = in + o * r * inner + c;
    T acc = Identity<T>(fn);
    for (int64_t k = 0; k < r; ++k) acc = Combine(fn, acc, p[k * inner]);
    out[i] = acc * scale;
  }
}

// One block per row: max, log-sum-exp, then loss and backprop = softmax - labels.
template <typename T>
__global__ void SoftmaxXentKernel(const T* logits, const T* labels, T* loss, T* backprop,
                                  int64_t classes) {
  __shared__ T shared[kThreads];
  const T* x = logits + blockIdx.x * classes;
  const T* y = labels + blockIdx.x * classes;
  T* g = backprop + blockIdx.x * classes;
  T m = -INFINITY;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) m = x[c] > m ? x[c] : m;
  m = BlockReduce(ReduceFn::kMax, m, shared);
  T sum = 0;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) sum += exp(x[c] - m);
  sum = BlockReduce(ReduceFn::kSum, sum, shared);
  const T log_sum = log(sum);
  T l = 0;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    const T shifted = x[c] - m;
    l += y[c] * (log_sum - shifted);
    g[c] = exp(shifted) / sum - y[c];
  }
  l = BlockReduce(ReduceFn::kSum, l, shared);
  if (threadIdx.x == 0) loss[blockIdx.x] = l;
}

}  // namespace

template <typename T>
void LaunchReduce3D(ReduceFn fn, const T* in, T* out, int64_t outer, int64_t r, int64_t inner,
                    T scale, cudaStream_t s) {
  if (outer * inner == 0) return;
  if (inner == 1) {
    ReduceRowsKernel<<<static_cast<unsigned>(outer), kThreads, 0, s>>>(fn, in, out, r, scale);
    return;
  }
  int64_t blocks = (outer * inner + kThreads - 1) / kThreads;
  if (blocks > 65535 * 8) blocks = 65535 * 8;
  ReduceColumnsKernel<<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(fn, in, out, outer, r,
                                                                         inner, scale);
}

template <typename T>
void LaunchSoftmaxXent(const T* logits, const T* labels, T* loss, T* backprop, int64_t batch,
                       int64_t classes, cudaStream_t s) {
  if (batch == 0) return;
  SoftmaxXentKernel<<<static_cast<unsigned>(batch), kThreads, 0, s>>>(logits, labels, loss,
                                                                      backprop, classes);
}

#define FB_INSTANTIATE(T)                                                                   \
  template void LaunchReduce3D<T>(ReduceFn, const T*, T*, int64_t, int64_t, int64_t, T,     \
                                  cudaStream_t);                                            \
  template void LaunchSoftmaxXent<T>(const T*, const T*, T*, T*, int64_t, int64_t, cudaStream_t);
FB_INSTANTIATE(float)
FB_INSTANTIATE(double)
#undef FB_INSTANTIATE

}  // namespace fb::gpu
