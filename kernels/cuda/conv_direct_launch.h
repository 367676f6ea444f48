#pragma once
// Direct (naive) CUDA convolutions: the fallback of kernels/cuda/conv_ops.cc for the shapes and
// data types where cuDNN offers no algorithm (seen on an H200 with cuDNN 9.19: double-precision
// NHWC filter and input gradients of strided convolutions). Correct for every geometry, not fast:
// one thread per output element (forward, input gradient) or one block per filter element (filter
// gradient, reduced in shared memory); no workspace, no atomics, so results are deterministic.
// Layouts as TensorFlow's: x NHWC [batch, rows, cols, in_depth], filter HWIO [window_rows,
// window_cols, in_depth, out_depth], y NHWC [batch, out_rows, out_cols, out_depth]. Input rows
// outside [0, rows) (padding, before or after, symmetric or not) read as zeros. Enqueued on `s`;
// launch errors surface through cudaGetLastError. T = float, double.
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

// Output (p, q) reads input rows p * stride_rows - pad_rows + r * dilation_rows for r in
// [0, window_rows), and columns likewise (engine/ops/nn_ops_common.h's Conv2DShape, flattened).
struct DirectConvGeometry {
  int64_t batch = 0, rows = 0, cols = 0, in_depth = 0;
  int64_t out_rows = 0, out_cols = 0, out_depth = 0;
  int64_t window_rows = 1, window_cols = 1, stride_rows = 1, stride_cols = 1;
  int64_t dilation_rows = 1, dilation_cols = 1, pad_rows = 0, pad_cols = 0;
};

// y[b, p, q, k] = sum over r, s, c of x[b, p*sr - pr + r*dr, q*sc - pc + s*dc, c] * w[r, s, c, k].
template <typename T>
void LaunchDirectConv2D(const T* x, const T* w, const DirectConvGeometry& g, T* y,
                        cudaStream_t s);

// dx[b, i, j, c] = sum over (r, s, k) and the outputs (p, q) that read input (i, j) through
// filter tap (r, s) of dy[b, p, q, k] * w[r, s, c, k].
template <typename T>
void LaunchDirectConv2DBackpropInput(const T* w, const T* dy, const DirectConvGeometry& g, T* dx,
                                     cudaStream_t s);

// dw[r, s, c, k] = sum over b, p, q of x[b, p*sr - pr + r*dr, q*sc - pc + s*dc, c] * dy[b, p, q, k].
template <typename T>
void LaunchDirectConv2DBackpropFilter(const T* x, const T* dy, const DirectConvGeometry& g, T* dw,
                                      cudaStream_t s);

// Testing hook (tests/gpu): when true, the GPU Conv2D kernels of conv_ops.cc skip cuDNN and run
// the direct kernels for every geometry and data type. Off by default; process-wide.
void SetDirectConvolutionForced(bool forced);

}  // namespace fb::gpu
