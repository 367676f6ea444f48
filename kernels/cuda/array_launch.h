#pragma once
// Launcher of the one CUDA kernel behind the GPU array ops (array_kernels.cu; op kernels in
// array_ops.cc): a strided element copy that expresses Slice, Transpose, Tile, Pad, Concat, Pack,
// Split and Unpack. Plain pointers and sizes only, so host-compiled files can include it. The
// launch is enqueued on `stream` and returns at once; launch errors surface through
// cudaGetLastError (GpuDevice::Compute turns them into a Status).
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

inline constexpr int kMaxCopyDims = 8;

// Iterates over the row-major index space `dims` (rank <= kMaxCopyDims, n = prod(dims) elements)
// and for each multi-index i copies
//   src[src_base + sum_d (i[d] % src_mod[d]) * src_strides[d]]
//   -> dst[dst_base + sum_d i[d] * dst_strides[d]].
// Offsets and strides are in elements. src_mod[d] = dims[d] leaves the index as it is; Tile sets
// it to the input's dimension. Source and destination must not overlap.
struct StridedCopy {
  int rank = 0;
  int64_t dims[kMaxCopyDims] = {};
  int64_t src_strides[kMaxCopyDims] = {};
  int64_t src_mod[kMaxCopyDims] = {};
  int64_t dst_strides[kMaxCopyDims] = {};
  int64_t src_base = 0, dst_base = 0;
};

// Copies n elements of `element_bytes` bytes each as `c` describes. Sizes other than 1, 2, 4 and
// 8 copy nothing (callers check with IsCopyableElementSize). n == 0 launches nothing.
inline bool IsCopyableElementSize(size_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8;
}
void LaunchStridedCopy(int element_bytes, const void* src, void* dst, int64_t n,
                       const StridedCopy& c, cudaStream_t stream);

}  // namespace fb::gpu
