#pragma once
// The launch shape shared by flowbench's element-wise CUDA kernels: 256-thread blocks, a grid of
// at most 65535 * 8 blocks, and a grid-stride loop over int64 indices so that one launch covers
// any element count (and a grid smaller than the work is correct, only slower).
#include <cstdint>

namespace fb::gpu {

inline constexpr int kThreads = 256;
inline constexpr int64_t kMaxBlocks = 65535 * 8;

// Blocks of kThreads for n elements: ceil(n / kThreads), at least 1 and at most kMaxBlocks.
inline int Blocks(int64_t n) {
  const int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<int>(b < kMaxBlocks ? (b > 0 ? b : 1) : kMaxBlocks);
}

}  // namespace fb::gpu

// for (i = this thread's first index; i < n; i += the grid's thread count)
#define FB_GRID_LOOP(i, n)                                                   \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < (n); \
       i += int64_t{blockDim.x} * gridDim.x)
