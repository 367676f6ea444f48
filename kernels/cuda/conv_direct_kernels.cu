// CUDA kernels of conv_direct_launch.h: direct convolutions for the shapes cuDNN refuses.
#include <cstdint>

#include "kernels/cuda/conv_direct_launch.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

// The input row read by output row `out` through filter tap `tap`; may be outside [0, in).
__device__ inline int64_t InputIndex(int64_t out, int64_t tap, int64_t stride, int64_t dilation,
                                     int64_t pad) {
  return out * stride - pad + tap * dilation;
}

// The output row that reads input row `in` through filter tap `tap`, or -1 when none does.
__device__ inline int64_t OutputIndex(int64_t in, int64_t tap, int64_t stride, int64_t dilation,
                                      int64_t pad, int64_t out_size) {
  const int64_t t = in + pad - tap * dilation;
  if (t < 0 || t % stride != 0) return -1;
  const int64_t o = t / stride;
  return o < out_size ? o : -1;
}

template <typename T>
__global__ void ForwardKernel(const T* x, const T* w, DirectConvGeometry g, T* y, int64_t n) {
  FB_GRID_LOOP(i, n) {
    const int64_t k = i % g.out_depth;
    int64_t t = i / g.out_depth;
    const int64_t q = t % g.out_cols;
    t /= g.out_cols;
    const int64_t p = t % g.out_rows;
    const int64_t b = t / g.out_rows;
    T acc = 0;
    for (int64_t r = 0; r < g.window_rows; ++r) {
      const int64_t row = InputIndex(p, r, g.stride_rows, g.dilation_rows, g.pad_rows);
      if (row < 0 || row >= g.rows) continue;
      for (int64_t s = 0; s < g.window_cols; ++s) {
        const int64_t col = InputIndex(q, s, g.stride_cols, g.dilation_cols, g.pad_cols);
        if (col < 0 || col >= g.cols) continue;
        const T* xp = x + ((b * g.rows + row) * g.cols + col) * g.in_depth;
        const T* wp = w + (r * g.window_cols + s) * g.in_depth * g.out_depth + k;
        for (int64_t c = 0; c < g.in_depth; ++c) acc += xp[c] * wp[c * g.out_depth];
      }
    }
    y[i] = acc;
  }
}

template <typename T>
__global__ void BackpropInputKernel(const T* w, const T* dy, DirectConvGeometry g, T* dx,
                                    int64_t n) {
  FB_GRID_LOOP(i, n) {
    const int64_t c = i % g.in_depth;
    int64_t t = i / g.in_depth;
    const int64_t col = t % g.cols;
    t /= g.cols;
    const int64_t row = t % g.rows;
    const int64_t b = t / g.rows;
    T acc = 0;
    for (int64_t r = 0; r < g.window_rows; ++r) {
      const int64_t p =
          OutputIndex(row, r, g.stride_rows, g.dilation_rows, g.pad_rows, g.out_rows);
      if (p < 0) continue;
      for (int64_t s = 0; s < g.window_cols; ++s) {
        const int64_t q =
            OutputIndex(col, s, g.stride_cols, g.dilation_cols, g.pad_cols, g.out_cols);
        if (q < 0) continue;
        const T* dyp = dy + ((b * g.out_rows + p) * g.out_cols + q) * g.out_depth;
        const T* wp = w + ((r * g.window_cols + s) * g.in_depth + c) * g.out_depth;
        for (int64_t k = 0; k < g.out_depth; ++k) acc += dyp[k] * wp[k];
      }
    }
    dx[i] = acc;
  }
}

// One block per filter element (grid-stride over elements); the block's threads split the
// batch x output positions and reduce in shared memory (kThreads, a power of two).
template <typename T>
__global__ void BackpropFilterKernel(const T* x, const T* dy, DirectConvGeometry g, T* dw,
                                     int64_t n) {
  __shared__ T partial[kThreads];
  const int64_t positions = g.batch * g.out_rows * g.out_cols;
  for (int64_t i = blockIdx.x; i < n; i += gridDim.x) {
    const int64_t k = i % g.out_depth;
    int64_t t = i / g.out_depth;
    const int64_t c = t % g.in_depth;
    t /= g.in_depth;
    const int64_t s = t % g.window_cols;
    const int64_t r = t / g.window_cols;
    T acc = 0;
    for (int64_t j = threadIdx.x; j < positions; j += blockDim.x) {
      const int64_t q = j % g.out_cols;
      const int64_t p = (j / g.out_cols) % g.out_rows;
      const int64_t b = j / (g.out_cols * g.out_rows);
      const int64_t row = InputIndex(p, r, g.stride_rows, g.dilation_rows, g.pad_rows);
      const int64_t col = InputIndex(q, s, g.stride_cols, g.dilation_cols, g.pad_cols);
      if (row < 0 || row >= g.rows || col < 0 || col >= g.cols) continue;
      acc += x[((b * g.rows + row) * g.cols + col) * g.in_depth + c] * dy[j * g.out_depth + k];
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads();
    }
    if (threadIdx.x == 0) dw[i] = partial[0];
    __syncthreads();  // partial is rewritten by the next element
  }
}

}  // namespace

template <typename T>
void LaunchDirectConv2D(const T* x, const T* w, const DirectConvGeometry& g, T* y,
                        cudaStream_t s) {
  const int64_t n = g.batch * g.out_rows * g.out_cols * g.out_depth;
  if (n > 0) ForwardKernel<T><<<Blocks(n), kThreads, 0, s>>>(x, w, g, y, n);
}

template <typename T>
void LaunchDirectConv2DBackpropInput(const T* w, const T* dy, const DirectConvGeometry& g, T* dx,
                                     cudaStream_t s) {
  const int64_t n = g.batch * g.rows * g.cols * g.in_depth;
  if (n > 0) BackpropInputKernel<T><<<Blocks(n), kThreads, 0, s>>>(w, dy, g, dx, n);
}

template <typename T>
void LaunchDirectConv2DBackpropFilter(const T* x, const T* dy, const DirectConvGeometry& g, T* dw,
                                      cudaStream_t s) {
  const int64_t n = g.window_rows * g.window_cols * g.in_depth * g.out_depth;
  const int blocks = static_cast<int>(n < kMaxBlocks ? n : kMaxBlocks);
  if (n > 0) BackpropFilterKernel<T><<<blocks, kThreads, 0, s>>>(x, dy, g, dw, n);
}

#define FB_INSTANTIATE_DIRECT_CONV(T)                                                        \
  template void LaunchDirectConv2D<T>(const T*, const T*, const DirectConvGeometry&, T*,     \
                                      cudaStream_t);                                         \
  template void LaunchDirectConv2DBackpropInput<T>(const T*, const T*,                       \
                                                   const DirectConvGeometry&, T*,            \
                                                   cudaStream_t);                            \
  template void LaunchDirectConv2DBackpropFilter<T>(const T*, const T*,                      \
                                                    const DirectConvGeometry&, T*,           \
                                                    cudaStream_t);
FB_INSTANTIATE_DIRECT_CONV(float)
FB_INSTANTIATE_DIRECT_CONV(double)
#undef FB_INSTANTIATE_DIRECT_CONV

}  // namespace fb::gpu
