// CUDA kernels of max pooling and its gradient (launchers declared in window_launch.h; op
// kernels in max_pool_ops.cc): each window's maximum and first argmax by kernels/cpu's rule, then
// one thread per input element gathering the gradients of the windows whose argmax it is (no
// atomics, the CPU's order of summation). Windows are clipped to the input, so any padding,
// asymmetric SAME included, needs no padded copy. Grid-stride loops with 256-thread blocks. The
// index arithmetic (an element's position from its flat index: divisions by depth, columns and
// rows) runs in 32-bit integers when the tensors have fewer than 2^31 elements, since 64-bit
// division is a long software sequence on the GPU and these kernels should be memory-bound.
#include <cstdint>
#include <limits>

#include "kernels/cuda/grid_loop.cuh"
#include "kernels/cuda/window_launch.h"

namespace fb::gpu {
namespace {

// PoolGeometry in the index type I of the arithmetic.
template <typename I>
struct Geometry {
  I rows, cols, depth, out_rows, out_cols, window_rows, window_cols, stride_rows, stride_cols,
      pad_rows, pad_cols;
  explicit Geometry(const PoolGeometry& g)
      : rows(static_cast<I>(g.rows)), cols(static_cast<I>(g.cols)),
        depth(static_cast<I>(g.depth)), out_rows(static_cast<I>(g.out_rows)),
        out_cols(static_cast<I>(g.out_cols)), window_rows(static_cast<I>(g.window_rows)),
        window_cols(static_cast<I>(g.window_cols)), stride_rows(static_cast<I>(g.stride_rows)),
        stride_cols(static_cast<I>(g.stride_cols)), pad_rows(static_cast<I>(g.pad_rows)),
        pad_cols(static_cast<I>(g.pad_cols)) {}
};

// Input range [*lo, *hi) of output index o along one dimension, clipped to [0, in).
template <typename I>
__device__ void WindowOf(I o, I stride, I pad, I window, I in, I* lo, I* hi) {
  const I start = o * stride - pad;
  *lo = start > 0 ? start : 0;
  *hi = start + window < in ? start + window : in;
}

// Output indices [*lo, *hi) whose (unclipped) window holds input index r.
template <typename I>
__device__ void CoveringOutputs(I r, I stride, I pad, I window, I out, I* lo, I* hi) {
  const I first = r + pad - window + 1;  // smallest window start that reaches r
  *lo = first > 0 ? (first + stride - 1) / stride : 0;
  const I last = (r + pad) / stride + 1;  // r + pad >= 0
  *hi = last < out ? last : out;
}

// Whether v replaces `best` as a window's maximum under kernels/cpu's rule (row-major window
// order): strictly larger, or the window's first NaN.
template <typename T>
__device__ bool Beats(T v, T best) {
  return v > best || (v != v && best == best);
}

// One output element per index i < n of [batch, out_rows, out_cols, depth]: y[i] = the window's
// maximum (NaN if it holds one, -inf for an empty window, as kernels/cpu) if y is given, and its
// first argmax as the pixel offset r * cols + c within the image (-1 for an empty window) if arg
// is given.
template <typename T, typename I, typename A>
__global__ void MaxPoolKernel(const T* x, Geometry<I> g, T* y, A* arg, I n) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<I>(blockDim.x) * gridDim.x) {
    const I d = i % g.depth;
    I t = i / g.depth;
    const I oj = t % g.out_cols;
    t /= g.out_cols;
    const I oi = t % g.out_rows;
    const I b = t / g.out_rows;
    I r0, r1, c0, c1;
    WindowOf(oi, g.stride_rows, g.pad_rows, g.window_rows, g.rows, &r0, &r1);
    WindowOf(oj, g.stride_cols, g.pad_cols, g.window_cols, g.cols, &c0, &c1);
    T best = -std::numeric_limits<T>::infinity();
    I best_at = -1;
    const T* image = x + static_cast<int64_t>(b) * g.rows * g.cols * g.depth + d;
    for (I r = r0; r < r1; ++r)
      for (I c = c0; c < c1; ++c) {
        const T v = image[(r * g.cols + c) * g.depth];
        if (best_at < 0 || Beats(v, best)) {
          best = v;
          best_at = r * g.cols + c;
        }
      }
    if (y != nullptr) y[i] = best;
    if (arg != nullptr) arg[i] = static_cast<A>(best_at);
  }
}

// One input element per index i < n of [batch, rows, cols, depth]: the sum of dy over the
// windows that hold it and whose argmax it is, in row-major window order (kernels/cpu's order of
// accumulation: equal sums).
template <typename T, typename I, typename A>
__global__ void MaxPoolGradGatherKernel(const T* dy, const A* arg, Geometry<I> g, T* dx, I n) {
  for (I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<I>(blockDim.x) * gridDim.x) {
    const I d = i % g.depth;
    I t = i / g.depth;
    const I c = t % g.cols;
    t /= g.cols;
    const I r = t % g.rows;
    const I b = t / g.rows;
    I i0, i1, j0, j1;
    CoveringOutputs(r, g.stride_rows, g.pad_rows, g.window_rows, g.out_rows, &i0, &i1);
    CoveringOutputs(c, g.stride_cols, g.pad_cols, g.window_cols, g.out_cols, &j0, &j1);
    const A self = static_cast<A>(r * g.cols + c);
    T sum = 0;
    for (I oi = i0; oi < i1; ++oi)
      for (I oj = j0; oj < j1; ++oj) {
        const I o = ((b * g.out_rows + oi) * g.out_cols + oj) * g.depth + d;
        if (arg[o] == self) sum += dy[o];
      }
    dx[i] = sum;
  }
}

// Whether every index (and index + grid stride) of these element counts fits int32_t.
bool Fits32(int64_t n_in, int64_t n_out) {
  const int64_t n = n_in > n_out ? n_in : n_out;
  return n + int64_t{Blocks(n)} * kThreads <= std::numeric_limits<int32_t>::max();
}

template <typename T, typename I, typename A>
void LaunchGrad(const T* x, const T* dy, const PoolGeometry& pg, A* argmax, T* dx, int64_t n_in,
                int64_t n_out, cudaStream_t s) {
  const Geometry<I> g(pg);
  if (n_out > 0)
    MaxPoolKernel<T, I, A><<<Blocks(n_out), kThreads, 0, s>>>(x, g, nullptr, argmax,
                                                               static_cast<I>(n_out));
  if (n_in > 0)
    MaxPoolGradGatherKernel<T, I, A><<<Blocks(n_in), kThreads, 0, s>>>(dy, argmax, g, dx,
                                                                        static_cast<I>(n_in));
}

}  // namespace

template <typename T>
void LaunchMaxPool(const T* x, const PoolGeometry& g, T* y, cudaStream_t s) {
  const int64_t n_in = g.batch * g.rows * g.cols * g.depth;
  const int64_t n = g.batch * g.out_rows * g.out_cols * g.depth;
  if (n <= 0) return;
  if (Fits32(n_in, n))
    MaxPoolKernel<T, int32_t, int32_t><<<Blocks(n), kThreads, 0, s>>>(
        x, Geometry<int32_t>(g), y, nullptr, static_cast<int32_t>(n));
  else
    MaxPoolKernel<T, int64_t, int64_t><<<Blocks(n), kThreads, 0, s>>>(
        x, Geometry<int64_t>(g), y, nullptr, n);
}

template <typename T, typename Index>
void LaunchMaxPoolGrad(const T* x, const T* dy, const PoolGeometry& g, Index* argmax, T* dx,
                       cudaStream_t s) {
  const int64_t n_out = g.batch * g.out_rows * g.out_cols * g.depth;
  const int64_t n_in = g.batch * g.rows * g.cols * g.depth;
  if (Fits32(n_in, n_out)) LaunchGrad<T, int32_t>(x, dy, g, argmax, dx, n_in, n_out, s);
  else LaunchGrad<T, int64_t>(x, dy, g, argmax, dx, n_in, n_out, s);
}

#define FB_INSTANTIATE_MAX_POOL(T)                                                            \
  template void LaunchMaxPool<T>(const T*, const PoolGeometry&, T*, cudaStream_t);            \
  template void LaunchMaxPoolGrad<T, int32_t>(const T*, const T*, const PoolGeometry&,        \
                                              int32_t*, T*, cudaStream_t);                    \
  template void LaunchMaxPoolGrad<T, int64_t>(const T*, const T*, const PoolGeometry&,        \
                                              int64_t*, T*, cudaStream_t);
FB_INSTANTIATE_MAX_POOL(float)
FB_INSTANTIATE_MAX_POOL(double)
#undef FB_INSTANTIATE_MAX_POOL

}  // namespace fb::gpu
