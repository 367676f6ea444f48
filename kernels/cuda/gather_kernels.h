#pragma once
// Launchers of the gather/scatter CUDA kernels (gather_kernels.cu) used by gather_ops.cc: Gather,
// OneHot and UnsortedSegmentSum. Values are moved by their size only (elem_bytes 1, 2, 4 or 8), so
// one kernel serves every dtype of that size. Plain device pointers; every launcher enqueues on
// `stream` and returns at once. Index = int32_t or int64_t (and uint8_t for OneHot). Indices are
// checked on the host by the op kernels before launching; the kernels still never read or write
// outside their buffers for a bad index (Gather writes zeros, UnsortedSegmentSum drops the row).
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

// out[o, j, k] = params[o, idx[j], k] for params [outer, limit, inner] and out [outer, n, inner].
template <typename Index>
void LaunchGather(const void* params, const Index* idx, void* out, int64_t outer, int64_t n,
                  int64_t limit, int64_t inner, int elem_bytes, cudaStream_t stream);

// out[p, d, s] = idx[p, s] == d ? *on : *off for out [prefix, depth, suffix]; `on` and `off` are
// device pointers to one value each.
template <typename Index>
void LaunchOneHot(const Index* idx, const void* on, const void* off, void* out, int64_t prefix,
                  int64_t depth, int64_t suffix, int elem_bytes, cudaStream_t stream);

// out[ids[j], k] += data[j, k] for data [n, inner] (atomicAdd; the caller zeroes out, which has
// num_segments rows); rows whose id is outside [0, num_segments) are dropped. T = float, double.
template <typename T, typename Index>
void LaunchUnsortedSegmentSum(const T* data, const Index* ids, int64_t n, int64_t inner,
                              int64_t num_segments, T* out, cudaStream_t stream);

}  // namespace fb::gpu
