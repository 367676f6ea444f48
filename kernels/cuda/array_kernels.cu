// The strided element copy behind the GPU array ops (launcher declared in array_launch.h).
// Grid-stride loop with 256-thread blocks; the element is moved as an unsigned integer of its
// size, so one instantiation per size serves every dtype of that size.
#include "kernels/cuda/array_launch.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

template <typename E>
__global__ void StridedCopyKernel(const E* src, E* dst, int64_t n, StridedCopy c) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{blockDim.x} * gridDim.x) {
    int64_t rest = i, s = c.src_base, d = c.dst_base;
    for (int k = c.rank - 1; k >= 0; --k) {
      const int64_t idx = rest % c.dims[k];
      rest /= c.dims[k];
      s += (idx % c.src_mod[k]) * c.src_strides[k];
      d += idx * c.dst_strides[k];
    }
    dst[d] = src[s];
  }
}

template <typename E>
void Launch(const void* src, void* dst, int64_t n, const StridedCopy& c, cudaStream_t stream) {
  StridedCopyKernel<E><<<Blocks(n), kThreads, 0, stream>>>(static_cast<const E*>(src),
                                                             static_cast<E*>(dst), n, c);
}

}  // namespace

void LaunchStridedCopy(int element_bytes, const void* src, void* dst, int64_t n,
                       const StridedCopy& c, cudaStream_t stream) {
  if (n <= 0) return;
  switch (element_bytes) {
    case 1: Launch<uint8_t>(src, dst, n, c, stream); break;
    case 2: Launch<uint16_t>(src, dst, n, c, stream); break;
    case 4: Launch<uint32_t>(src, dst, n, c, stream); break;
    case 8: Launch<uint64_t>(src, dst, n, c, stream); break;
    default: break;
  }
}

}  // namespace fb::gpu
