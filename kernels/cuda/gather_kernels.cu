// Gather, OneHot and UnsortedSegmentSum CUDA kernels (launchers in gather_kernels.h): grid-stride
// loops over the output (Gather, OneHot) or the input (UnsortedSegmentSum, atomicAdd into the
// output) with 256-thread blocks and int64 indexing.
#include <algorithm>

#include "kernels/cuda/gather_kernels.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

template <typename V, typename Index>
__global__ void GatherKernel(const V* params, const Index* idx, V* out, int64_t total, int64_t n,
                             int64_t limit, int64_t inner) {
  FB_GRID_LOOP(i, total) {
    const int64_t k = i % inner, row = i / inner;
    const int64_t j = row % n, o = row / n;
    const int64_t r = static_cast<int64_t>(idx[j]);
    out[i] = r >= 0 && r < limit ? params[(o * limit + r) * inner + k] : V{};
  }
}

template <typename V, typename Index>
__global__ void OneHotKernel(const Index* idx, const V* on, const V* off, V* out, int64_t total,
                             int64_t depth, int64_t suffix) {
  FB_GRID_LOOP(i, total) {
    const int64_t s = i % suffix, pd = i / suffix;
    const int64_t d = pd % depth, p = pd / depth;
    out[i] = static_cast<int64_t>(idx[p * suffix + s]) == d ? *on : *off;
  }
}

template <typename T, typename Index>
__global__ void SegmentSumKernel(const T* data, const Index* ids, int64_t total, int64_t inner,
                                 int64_t num_segments, T* out) {
  FB_GRID_LOOP(i, total) {
    const int64_t j = i / inner, k = i % inner;
    const int64_t id = static_cast<int64_t>(ids[j]);
    if (id >= 0 && id < num_segments) atomicAdd(out + id * inner + k, data[i]);
  }
}

template <typename V, typename Index>
void GatherAs(const void* params, const Index* idx, void* out, int64_t total, int64_t n,
              int64_t limit, int64_t inner, cudaStream_t s) {
  GatherKernel<V, Index><<<Blocks(total), kThreads, 0, s>>>(
      static_cast<const V*>(params), idx, static_cast<V*>(out), total, n, limit, inner);
}

template <typename V, typename Index>
void OneHotAs(const Index* idx, const void* on, const void* off, void* out, int64_t total,
              int64_t depth, int64_t suffix, cudaStream_t s) {
  OneHotKernel<V, Index><<<Blocks(total), kThreads, 0, s>>>(
      idx, static_cast<const V*>(on), static_cast<const V*>(off), static_cast<V*>(out), total,
      depth, suffix);
}

}  // namespace

template <typename Index>
void LaunchGather(const void* params, const Index* idx, void* out, int64_t outer, int64_t n,
                  int64_t limit, int64_t inner, int elem_bytes, cudaStream_t s) {
  const int64_t total = outer * n * inner;
  if (total <= 0) return;
  // The op kernels register only dtypes of 1, 2, 4 or 8 bytes.
  switch (elem_bytes) {
    case 1: return GatherAs<uint8_t>(params, idx, out, total, n, limit, inner, s);
    case 2: return GatherAs<uint16_t>(params, idx, out, total, n, limit, inner, s);
    case 4: return GatherAs<uint32_t>(params, idx, out, total, n, limit, inner, s);
    case 8: return GatherAs<uint64_t>(params, idx, out, total, n, limit, inner, s);
  }
}

template <typename Index>
void LaunchOneHot(const Index* idx, const void* on, const void* off, void* out, int64_t prefix,
                  int64_t depth, int64_t suffix, int elem_bytes, cudaStream_t s) {
  const int64_t total = prefix * depth * suffix;
  if (total <= 0) return;
  switch (elem_bytes) {
    case 1: return OneHotAs<uint8_t>(idx, on, off, out, total, depth, suffix, s);
    case 2: return OneHotAs<uint16_t>(idx, on, off, out, total, depth, suffix, s);
    case 4: return OneHotAs<uint32_t>(idx, on, off, out, total, depth, suffix, s);
    case 8: return OneHotAs<uint64_t>(idx, on, off, out, total, depth, suffix, s);
  }
}

template <typename T, typename Index>
void LaunchUnsortedSegmentSum(const T* data, const Index* ids, int64_t n, int64_t inner,
                              int64_t num_segments, T* out, cudaStream_t s) {
  const int64_t total = n * inner;
  if (total <= 0) return;
  SegmentSumKernel<T, Index><<<Blocks(total), kThreads, 0, s>>>(data, ids, total, inner,
                                                                 num_segments, out);
}

#define FB_INSTANTIATE_INDEX(Index)                                                           \
  template void LaunchGather<Index>(const void*, const Index*, void*, int64_t, int64_t,       \
                                    int64_t, int64_t, int, cudaStream_t);                     \
  template void LaunchOneHot<Index>(const Index*, const void*, const void*, void*, int64_t,   \
                                    int64_t, int64_t, int, cudaStream_t);
FB_INSTANTIATE_INDEX(int32_t)
FB_INSTANTIATE_INDEX(int64_t)
template void LaunchOneHot<uint8_t>(const uint8_t*, const void*, const void*, void*, int64_t,
                                    int64_t, int64_t, int, cudaStream_t);
#undef FB_INSTANTIATE_INDEX

#define FB_INSTANTIATE_SEGMENT_SUM(T, Index)                                                  \
  template void LaunchUnsortedSegmentSum<T, Index>(const T*, const Index*, int64_t, int64_t, \
                                                   int64_t, T*, cudaStream_t);
FB_INSTANTIATE_SEGMENT_SUM(float, int32_t)
FB_INSTANTIATE_SEGMENT_SUM(float, int64_t)
FB_INSTANTIATE_SEGMENT_SUM(double, int32_t)
FB_INSTANTIATE_SEGMENT_SUM(double, int64_t)
#undef FB_INSTANTIATE_SEGMENT_SUM

}  // namespace fb::gpu
