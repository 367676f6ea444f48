// Reduction CUDA kernels: Sum/Max/Min over the middle axis of [outer, r, inner] (the reduction
// ops collapse any axis set into passes of this form, like the CPU kernels), and the row-wise
// SoftmaxCrossEntropyWithLogits. Rows (inner == 1) are reduced by one 256-thread block each with
// a shared-memory tree; few long columns (sums) by chunked 32x32 blocks with one atomic per chunk
// and column; otherwise each thread owns one output column and walks r (coalesced across inner).
#include <algorithm>
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

// Sums over r for few columns (outer * inner small: BiasAddGrad of a conv layer, r = N*H*W): a
// 32x32 block owns 32 columns of one `outer` slice and one chunk of rows (gridDim.y chunks); its
// 32 row lanes sum strided rows, the block combines them in shared memory, and one atomicAdd per
// column adds the chunk's partial sum to `out` (zeroed first). The order of the chunks' additions
// varies between runs: float sums may differ in the last bits (as TensorFlow's BiasAddGrad).
template <typename T>
__global__ void SumColumnsChunkedKernel(const T* in, T* out, int64_t r, int64_t inner, T scale) {
  __shared__ T partial[32][33];
  const int64_t tiles = (inner + 31) / 32;
  const int64_t o = blockIdx.x / tiles;
  const int64_t c = (blockIdx.x % tiles) * 32 + threadIdx.x;
  T acc = 0;
  if (c < inner) {
    const T* p = in + o * r * inner + c;
    for (int64_t k = blockIdx.y * 32 + threadIdx.y; k < r; k += int64_t{gridDim.y} * 32)
      acc += p[k * inner];
  }
  partial[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && c < inner) {
    T sum = 0;
    for (int i = 0; i < 32; ++i) sum += partial[i][threadIdx.x];
    atomicAdd(out + o * inner + c, sum * scale);
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
  const int64_t tiles = outer * ((inner + 31) / 32);
  if (fn == ReduceFn::kSum && outer * inner <= 16384 && r >= 256 && tiles < 65536) {
    // Few columns and long ones: spread the rows over ~2048 blocks in all.
    const int64_t chunks = std::min<int64_t>((r + 31) / 32, std::max<int64_t>(1, 2048 / tiles));
    cudaMemsetAsync(out, 0, sizeof(T) * outer * inner, s);
    SumColumnsChunkedKernel<<<dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(chunks)),
                              dim3(32, 32), 0, s>>>(in, out, r, inner, scale);
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
