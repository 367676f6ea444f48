// CUDA kernels of the state and constant ops (AssignAdd/AssignSub, Fill, ZerosLike, OnesLike),
// AddN, Cast and ArgMax; launchers declared in state_launch.h. Grid-stride loops with 256-thread
// blocks and int64 indices, as cwise_kernels.cu.
#include <cstdint>
#include <type_traits>

#include "kernels/cuda/state_launch.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

template <typename T>
__global__ void AssignUpdateKernel(T* var, const T* value, bool add, int64_t n) {
  FB_GRID_LOOP(i, n) var[i] = add ? T(var[i] + value[i]) : T(var[i] - value[i]);
}

template <typename T>
__global__ void FillValueKernel(T* out, T value, int64_t n) {
  FB_GRID_LOOP(i, n) out[i] = value;
}

template <typename T>
__global__ void FillFromDeviceKernel(T* out, const T* value, int64_t n) {
  const T v = *value;
  FB_GRID_LOOP(i, n) out[i] = v;
}

template <typename T>
struct AddNPointers {
  const T* p[kAddNChunk];
};

// out[i] = p[0][i] + ... + p[k-1][i]; p[0] may be `out` itself (each element is read first).
template <typename T>
__global__ void AddNKernel(AddNPointers<T> in, int k, T* out, int64_t n) {
  FB_GRID_LOOP(i, n) {
    T sum = in.p[0][i];
    for (int j = 1; j < k; ++j) sum += in.p[j][i];
    out[i] = sum;
  }
}

template <typename Dst, typename Src>
__device__ Dst CastValue(Src v) {
  if constexpr (std::is_same_v<Dst, bool>) return v != Src(0);
  else return static_cast<Dst>(v);
}

template <typename Src, typename Dst>
__global__ void CastKernel(const Src* x, Dst* y, int64_t n) {
  FB_GRID_LOOP(i, n) y[i] = CastValue<Dst>(x[i]);
}

// NaN test that compiles for integers too (always false there).
template <typename T>
__device__ bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>) return isnan(v);
  else return false;
}

// Whether candidate (v, k) beats the current best (bv, bk) under ArgMax's rule: the first NaN
// wins; otherwise the larger value, the smaller index on ties.
template <typename T>
__device__ bool Beats(T v, int64_t k, T bv, int64_t bk) {
  const bool nan = IsNan(v), best_nan = IsNan(bv);
  if (nan || best_nan) return nan && (!best_nan || k < bk);
  return v > bv || (v == bv && k < bk);
}

// inner == 1 and long rows: one block per row (grid-stride over rows); each thread scans a strided
// part of the row, then a shared-memory tree picks the winner.
template <typename T, typename Tout>
__global__ void ArgMaxRowsKernel(const T* in, Tout* out, int64_t outer, int64_t r) {
  __shared__ T best_v[kThreads];
  __shared__ int64_t best_k[kThreads];
  for (int64_t row = blockIdx.x; row < outer; row += gridDim.x) {
    const T* p = in + row * r;
    T bv = p[0];
    int64_t bk = 0;
    for (int64_t k = threadIdx.x; k < r; k += blockDim.x)
      if (Beats(p[k], k, bv, bk)) bv = p[k], bk = k;
    best_v[threadIdx.x] = bv;
    best_k[threadIdx.x] = bk;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
      if (threadIdx.x < w) {
        const int o = threadIdx.x + w;
        if (Beats(best_v[o], best_k[o], best_v[threadIdx.x], best_k[threadIdx.x])) {
          best_v[threadIdx.x] = best_v[o];
          best_k[threadIdx.x] = best_k[o];
        }
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = static_cast<Tout>(best_k[0]);
    __syncthreads();  // the shared arrays are rewritten for the next row
  }
}

// inner > 1 or short rows: one thread per output element walks k (coalesced across inner).
template <typename T, typename Tout>
__global__ void ArgMaxColumnsKernel(const T* in, Tout* out, int64_t outer, int64_t r,
                                    int64_t inner) {
  FB_GRID_LOOP(i, outer * inner) {
    const T* p = in + (i / inner) * r * inner + i % inner;
    int64_t bk = 0;
    for (int64_t k = 1; k < r; ++k)
      if (Beats(p[k * inner], k, p[bk * inner], bk)) bk = k;
    out[i] = static_cast<Tout>(bk);
  }
}

}  // namespace

template <typename T>
void LaunchAssignUpdate(T* var, const T* value, bool add, int64_t n, cudaStream_t s) {
  if (n > 0) AssignUpdateKernel<<<Blocks(n), kThreads, 0, s>>>(var, value, add, n);
}

template <typename T>
void LaunchFillValue(T* out, T value, int64_t n, cudaStream_t s) {
  if (n > 0) FillValueKernel<<<Blocks(n), kThreads, 0, s>>>(out, value, n);
}

template <typename T>
void LaunchFillFromDevice(T* out, const T* value, int64_t n, cudaStream_t s) {
  if (n > 0) FillFromDeviceKernel<<<Blocks(n), kThreads, 0, s>>>(out, value, n);
}

template <typename T>
void LaunchAddN(const T* const* inputs, int num_inputs, T* out, int64_t n, cudaStream_t s) {
  if (n <= 0 || num_inputs < 1) return;
  // First launch: up to kAddNChunk inputs; later launches: the partial sum plus up to
  // kAddNChunk - 1 more.
  int next = 0;
  bool first = true;
  while (next < num_inputs) {
    AddNPointers<T> chunk;
    int k = 0;
    if (!first) chunk.p[k++] = out;
    while (k < kAddNChunk && next < num_inputs) chunk.p[k++] = inputs[next++];
    AddNKernel<<<Blocks(n), kThreads, 0, s>>>(chunk, k, out, n);
    first = false;
  }
}

template <typename Src, typename Dst>
void LaunchCast(const Src* x, Dst* y, int64_t n, cudaStream_t s) {
  if (n > 0) CastKernel<<<Blocks(n), kThreads, 0, s>>>(x, y, n);
}

template <typename T, typename Tout>
void LaunchArgMax(const T* in, Tout* out, int64_t outer, int64_t r, int64_t inner,
                  cudaStream_t s) {
  if (outer * inner == 0 || r <= 0) return;
  if (inner == 1 && r >= kThreads / 2) {  // long rows: a block each; short ones: a thread each
    const int64_t blocks = outer < kMaxBlocks ? outer : kMaxBlocks;
    ArgMaxRowsKernel<<<static_cast<int>(blocks), kThreads, 0, s>>>(in, out, outer, r);
  } else {
    ArgMaxColumnsKernel<<<Blocks(outer * inner), kThreads, 0, s>>>(in, out, outer, r, inner);
  }
}

#define FB_INSTANTIATE_NUMERIC(T)                                                   \
  template void LaunchAssignUpdate<T>(T*, const T*, bool, int64_t, cudaStream_t);   \
  template void LaunchAddN<T>(const T* const*, int, T*, int64_t, cudaStream_t);     \
  template void LaunchArgMax<T, int32_t>(const T*, int32_t*, int64_t, int64_t,      \
                                         int64_t, cudaStream_t);                    \
  template void LaunchArgMax<T, int64_t>(const T*, int64_t*, int64_t, int64_t,      \
                                         int64_t, cudaStream_t);
#define FB_INSTANTIATE_ALL(T)                                                       \
  template void LaunchFillValue<T>(T*, T, int64_t, cudaStream_t);                   \
  template void LaunchFillFromDevice<T>(T*, const T*, int64_t, cudaStream_t);       \
  template void LaunchCast<T, float>(const T*, float*, int64_t, cudaStream_t);      \
  template void LaunchCast<T, double>(const T*, double*, int64_t, cudaStream_t);    \
  template void LaunchCast<T, int32_t>(const T*, int32_t*, int64_t, cudaStream_t);  \
  template void LaunchCast<T, int64_t>(const T*, int64_t*, int64_t, cudaStream_t);  \
  template void LaunchCast<T, bool>(const T*, bool*, int64_t, cudaStream_t);
FB_INSTANTIATE_NUMERIC(float)
FB_INSTANTIATE_NUMERIC(double)
FB_INSTANTIATE_NUMERIC(int32_t)
FB_INSTANTIATE_NUMERIC(int64_t)
FB_INSTANTIATE_ALL(float)
FB_INSTANTIATE_ALL(double)
FB_INSTANTIATE_ALL(int32_t)
FB_INSTANTIATE_ALL(int64_t)
FB_INSTANTIATE_ALL(bool)
#undef FB_INSTANTIATE_NUMERIC
#undef FB_INSTANTIATE_ALL

}  // namespace fb::gpu
