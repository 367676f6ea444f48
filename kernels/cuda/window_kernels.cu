// CUDA kernels of window_launch.h: explicit bottom/right padding and its crop for cuDNN's
// convolutions, and average pooling with padding excluded from the divisor (max pooling:
// max_pool_kernels.cu).
// Grid-stride loops with 256-thread blocks and int64 indices, as state_kernels.cu.
#include <cstdint>

#include "kernels/cuda/window_launch.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

// One pass over the padded tensor [batch, prows, pcols, depth]: copies or fills each element.
template <typename T>
__global__ void PadKernel(const T* x, int64_t rows, int64_t cols, int64_t depth, int64_t prows,
                          int64_t pcols, T fill, T* padded, int64_t n) {
  FB_GRID_LOOP(i, n) {
    const int64_t d = i % depth;
    int64_t t = i / depth;
    const int64_t c = t % pcols;
    t /= pcols;
    const int64_t r = t % prows;
    const int64_t b = t / prows;
    padded[i] = (r < rows && c < cols) ? x[((b * rows + r) * cols + c) * depth + d] : fill;
  }
}

// One pass over the cropped tensor [batch, rows, cols, depth].
template <typename T>
__global__ void CropKernel(const T* padded, int64_t rows, int64_t cols, int64_t depth,
                           int64_t prows, int64_t pcols, T* x, int64_t n) {
  FB_GRID_LOOP(i, n) {
    const int64_t d = i % depth;
    int64_t t = i / depth;
    const int64_t c = t % cols;
    t /= cols;
    const int64_t r = t % rows;
    const int64_t b = t / rows;
    x[i] = padded[((b * prows + r) * pcols + c) * depth + d];
  }
}

// Input range [*lo, *hi) covered by output index o along one dimension, clipped to [0, in).
__device__ void WindowRange(int64_t o, int64_t stride, int64_t pad, int64_t window, int64_t in,
                            int64_t* lo, int64_t* hi) {
  const int64_t start = o * stride - pad;
  *lo = start > 0 ? start : 0;
  *hi = start + window < in ? start + window : in;
}

template <typename T>
__global__ void AvgPoolKernel(const T* x, PoolGeometry g, T* y, int64_t n) {
  FB_GRID_LOOP(i, n) {
    const int64_t d = i % g.depth;
    int64_t t = i / g.depth;
    const int64_t oj = t % g.out_cols;
    t /= g.out_cols;
    const int64_t oi = t % g.out_rows;
    const int64_t b = t / g.out_rows;
    int64_t r0, r1, c0, c1;
    WindowRange(oi, g.stride_rows, g.pad_rows, g.window_rows, g.rows, &r0, &r1);
    WindowRange(oj, g.stride_cols, g.pad_cols, g.window_cols, g.cols, &c0, &c1);
    T sum = 0;
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = c0; c < c1; ++c) sum += x[((b * g.rows + r) * g.cols + c) * g.depth + d];
    const int64_t count = (r1 - r0) * (c1 - c0);
    y[i] = count > 0 ? sum / static_cast<T>(count) : T(0);
  }
}

// Output indices [*lo, *hi) whose window (before clipping) holds input index r.
__device__ void OutputRange(int64_t r, int64_t stride, int64_t pad, int64_t window, int64_t out,
                            int64_t* lo, int64_t* hi) {
  const int64_t first = r + pad - window + 1;  // smallest window start that reaches r
  *lo = first > 0 ? (first + stride - 1) / stride : 0;
  const int64_t last = (r + pad) / stride + 1;  // r + pad >= 0
  *hi = last < out ? last : out;
}

template <typename T>
__global__ void AvgPoolGradKernel(const T* dy, PoolGeometry g, T* dx, int64_t n) {
  FB_GRID_LOOP(i, n) {
    const int64_t d = i % g.depth;
    int64_t t = i / g.depth;
    const int64_t c = t % g.cols;
    t /= g.cols;
    const int64_t r = t % g.rows;
    const int64_t b = t / g.rows;
    int64_t i0, i1, j0, j1;
    OutputRange(r, g.stride_rows, g.pad_rows, g.window_rows, g.out_rows, &i0, &i1);
    OutputRange(c, g.stride_cols, g.pad_cols, g.window_cols, g.out_cols, &j0, &j1);
    T sum = 0;
    for (int64_t oi = i0; oi < i1; ++oi) {
      int64_t r0, r1;
      WindowRange(oi, g.stride_rows, g.pad_rows, g.window_rows, g.rows, &r0, &r1);
      for (int64_t oj = j0; oj < j1; ++oj) {
        int64_t c0, c1;
        WindowRange(oj, g.stride_cols, g.pad_cols, g.window_cols, g.cols, &c0, &c1);
        const T v = dy[((b * g.out_rows + oi) * g.out_cols + oj) * g.depth + d];
        sum += v / static_cast<T>((r1 - r0) * (c1 - c0));
      }
    }
    dx[i] = sum;
  }
}

}  // namespace

template <typename T>
void LaunchPadBottomRight(const T* x, int64_t batch, int64_t rows, int64_t cols, int64_t depth,
                          int64_t extra_rows, int64_t extra_cols, T fill, T* padded,
                          cudaStream_t s) {
  const int64_t prows = rows + extra_rows, pcols = cols + extra_cols;
  const int64_t n = batch * prows * pcols * depth;
  if (n > 0)
    PadKernel<<<Blocks(n), kThreads, 0, s>>>(x, rows, cols, depth, prows, pcols, fill, padded, n);
}

template <typename T>
void LaunchCropBottomRight(const T* padded, int64_t batch, int64_t rows, int64_t cols,
                           int64_t depth, int64_t extra_rows, int64_t extra_cols, T* x,
                           cudaStream_t s) {
  const int64_t n = batch * rows * cols * depth;
  if (n > 0)
    CropKernel<<<Blocks(n), kThreads, 0, s>>>(padded, rows, cols, depth, rows + extra_rows,
                                              cols + extra_cols, x, n);
}

template <typename T>
void LaunchAvgPool(const T* x, const PoolGeometry& g, T* y, cudaStream_t s) {
  const int64_t n = g.batch * g.out_rows * g.out_cols * g.depth;
  if (n > 0) AvgPoolKernel<<<Blocks(n), kThreads, 0, s>>>(x, g, y, n);
}

template <typename T>
void LaunchAvgPoolGrad(const T* dy, const PoolGeometry& g, T* dx, cudaStream_t s) {
  const int64_t n = g.batch * g.rows * g.cols * g.depth;
  if (n > 0) AvgPoolGradKernel<<<Blocks(n), kThreads, 0, s>>>(dy, g, dx, n);
}

#define FB_INSTANTIATE_WINDOW(T)                                                            \
  template void LaunchPadBottomRight<T>(const T*, int64_t, int64_t, int64_t, int64_t,      \
                                        int64_t, int64_t, T, T*, cudaStream_t);            \
  template void LaunchCropBottomRight<T>(const T*, int64_t, int64_t, int64_t, int64_t,     \
                                         int64_t, int64_t, T*, cudaStream_t);              \
  template void LaunchAvgPool<T>(const T*, const PoolGeometry&, T*, cudaStream_t);         \
  template void LaunchAvgPoolGrad<T>(const T*, const PoolGeometry&, T*, cudaStream_t);
FB_INSTANTIATE_WINDOW(float)
FB_INSTANTIATE_WINDOW(double)
#undef FB_INSTANTIATE_WINDOW

}  // namespace fb::gpu
