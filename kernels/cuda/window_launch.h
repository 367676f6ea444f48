#pragma once
// Launchers of the CUDA kernels behind asymmetric SAME padding of the windowed cuDNN ops
// (window_kernels.cu). TensorFlow's SAME padding puts the odd row (column) of an odd total pad
// after the input (bottom/right); cuDNN pads both sides equally, so conv_ops.cc pads the input
// explicitly at the bottom/right, runs cuDNN with the smaller symmetric padding and crops
// gradients back, as TensorFlow's GPU Conv2D does. Average pooling, whose divisor excludes
// padding, runs its own kernels instead, and so do MaxPool and MaxPoolGrad (max_pool_kernels.cu:
// any padding without a padded copy, kernels/cpu's argmax rule). In the style of gpu_launch.h:
// plain device pointers, int64 sizes, NHWC row-major layouts, enqueued on `s` and returning at
// once (launch errors surface through cudaGetLastError). T = float, double.
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

// padded[b, r, c, d] = x[b, r, c, d] for r < rows and c < cols, else `fill`, where x is
// [batch, rows, cols, depth] and padded is [batch, rows + extra_rows, cols + extra_cols, depth].
template <typename T>
void LaunchPadBottomRight(const T* x, int64_t batch, int64_t rows, int64_t cols, int64_t depth,
                          int64_t extra_rows, int64_t extra_cols, T fill, T* padded,
                          cudaStream_t s);

// The inverse: x[b, r, c, d] = padded[b, r, c, d] for x [batch, rows, cols, depth] and padded
// [batch, rows + extra_rows, cols + extra_cols, depth] (the extra rows/columns are dropped).
template <typename T>
void LaunchCropBottomRight(const T* padded, int64_t batch, int64_t rows, int64_t cols,
                           int64_t depth, int64_t extra_rows, int64_t extra_cols, T* x,
                           cudaStream_t s);

// Geometry of a 2-D pooling over NHWC input [batch, rows, cols, depth] with output
// [batch, out_rows, out_cols, depth]: output (i, j) covers input rows [i * stride_rows -
// pad_rows, + window_rows) and columns likewise, clipped to the input.
struct PoolGeometry {
  int64_t batch = 0, rows = 0, cols = 0, depth = 0, out_rows = 0, out_cols = 0;
  int64_t window_rows = 1, window_cols = 1, stride_rows = 1, stride_cols = 1;
  int64_t pad_rows = 0, pad_cols = 0;
};

// AvgPool: y[b, i, j, d] = mean of x over the clipped window (padding excluded from the count,
// as TensorFlow's SAME average pooling and kernels/cpu do).
template <typename T>
void LaunchAvgPool(const T* x, const PoolGeometry& g, T* y, cudaStream_t s);

// AvgPoolGrad: dx[b, r, c, d] = sum over the outputs (i, j) whose clipped window holds (r, c) of
// dy[b, i, j, d] / (that window's element count). Gathers, so no atomics: deterministic.
template <typename T>
void LaunchAvgPoolGrad(const T* dy, const PoolGeometry& g, T* dx, cudaStream_t s);

// MaxPool: y[b, i, j, d] = the maximum of x over the clipped window; NaN if the window holds a
// NaN, -inf for an empty window (as kernels/cpu/pooling_kernels.cc).
template <typename T>
void LaunchMaxPool(const T* x, const PoolGeometry& g, T* y, cudaStream_t s);

// MaxPoolGrad in two launches, without atomics (deterministic): first each window's argmax per
// channel, as kernels/cpu picks it (the first NaN in row-major window order, else the first
// maximum), is written to `argmax` [batch, out_rows, out_cols, depth] as the pixel offset
// r * cols + c within the image (-1 for an empty window); then each dx[b, r, c, d] gathers the
// dy of the windows whose argmax it is, summed in row-major window order (the CPU kernel's
// order, so float results are equal). Index = int32_t requires rows * cols <= INT32_MAX, else
// int64_t. `argmax` is scratch owned by the caller, valid until the launches have run.
template <typename T, typename Index>
void LaunchMaxPoolGrad(const T* x, const T* dy, const PoolGeometry& g, Index* argmax, T* dx,
                       cudaStream_t s);

}  // namespace fb::gpu
