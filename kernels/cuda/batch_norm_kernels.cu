// Batch-normalization CUDA kernels (launchers in batch_norm_kernels.h). Three passes, all on one
// stream:
//  1. ChannelSumsKernel: a grid of [ceil(C / 32), row_blocks] blocks of 32 x 8 threads; thread
//     (tx, ty) owns channel blockIdx.x * 32 + tx (a warp reads 32 consecutive channels of a row,
//     coalesced) and walks rows blockIdx.y * 8 + ty, stepping 8 * row_blocks, summing in double;
//     the 8 row-threads of a channel are added in shared memory and each block writes its two
//     partial sums per channel to scratch (no atomics: the result does not depend on timing).
//  2. A finalize kernel, one thread per channel: adds the row blocks' partials in block order and
//     computes the statistics and the per-channel coefficients of pass 3 (in double, rounded to T
//     as kernels/cpu/batch_norm_kernels.cc rounds them).
//  3. An element-wise grid-stride pass in T: y = x * a + b, or dx = a * dy + bx * (x - m) + b0.
#include <math_constants.h>

#include <algorithm>

#include "kernels/cuda/batch_norm_kernels.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

constexpr int kTx = 32, kTy = 8;  // ChannelSumsKernel's block
constexpr int64_t kMaxRowBlocks = 512;
constexpr int64_t kRowsPerThread = 32;

// Row blocks of ChannelSumsKernel: each thread sums about kRowsPerThread rows or more.
int64_t RowBlocks(int64_t rows) {
  const int64_t per_block = kTy * kRowsPerThread;
  return std::clamp<int64_t>((rows + per_block - 1) / per_block, 1, kMaxRowBlocks);
}

// partial[(by * 2 + 0) * C + c] and partial[(by * 2 + 1) * C + c] for row block by:
// forward (kGrad false): sum(x - x[0, c]) and sum((x - x[0, c])^2) with a = x;
// backward (kGrad true): sum(dy) and sum(dy * (x - mean[c])) with a = dy, b = x, center = mean.
template <typename T, bool kGrad>
__global__ void ChannelSumsKernel(const T* a, const T* b, const T* center, int64_t rows,
                                  int64_t channels, double* partial) {
  __shared__ double s1[kTy][kTx];
  __shared__ double s2[kTy][kTx];
  const int64_t c = blockIdx.x * int64_t{kTx} + threadIdx.x;
  double acc1 = 0, acc2 = 0;
  if (c < channels) {
    const T k = kGrad ? center[c] : a[c];
    for (int64_t r = blockIdx.y * int64_t{kTy} + threadIdx.y; r < rows;
         r += int64_t{kTy} * gridDim.y) {
      const int64_t i = r * channels + c;
      if (kGrad) {
        const T g = a[i];
        const T p = g * (b[i] - k);
        acc1 += static_cast<double>(g);
        acc2 += static_cast<double>(p);
      } else {
        const T d = a[i] - k;
        const T d2 = d * d;
        acc1 += static_cast<double>(d);
        acc2 += static_cast<double>(d2);
      }
    }
  }
  s1[threadIdx.y][threadIdx.x] = acc1;
  s2[threadIdx.y][threadIdx.x] = acc2;
  __syncthreads();
  if (threadIdx.y != 0 || c >= channels) return;
  for (int y = 1; y < kTy; ++y) {
    acc1 += s1[y][threadIdx.x];
    acc2 += s2[y][threadIdx.x];
  }
  partial[(blockIdx.y * int64_t{2}) * channels + c] = acc1;
  partial[(blockIdx.y * int64_t{2} + 1) * channels + c] = acc2;
}

// Adds the row blocks' partial sums of channel c.
__device__ void AddPartials(const double* partial, int64_t row_blocks, int64_t channels,
                            int64_t c, double* sum1, double* sum2) {
  double a = 0, b = 0;
  for (int64_t by = 0; by < row_blocks; ++by) {
    a += partial[(by * 2) * channels + c];
    b += partial[(by * 2 + 1) * channels + c];
  }
  *sum1 = a;
  *sum2 = b;
}

// coef[c] = a, coef[C + c] = b of y = x * a + b, and the four statistics outputs.
template <typename T>
__global__ void ForwardFinalizeKernel(BatchNormForwardArgs<T> p, int64_t row_blocks,
                                      double* coef) {
  FB_GRID_LOOP(c, p.channels) {
    double mean, variance;
    if (p.training) {
      if (p.rows == 0) {
        const T nan = static_cast<T>(CUDART_NAN);
        p.batch_mean[c] = p.batch_variance[c] = p.saved_mean[c] = p.saved_variance[c] = nan;
        continue;
      }
      double s1, s2;
      AddPartials(p.scratch, row_blocks, p.channels, c, &s1, &s2);
      const double m = static_cast<double>(p.rows);
      const double d = s1 / m;
      mean = static_cast<double>(p.x[c]) + d;
      variance = fmax(0.0, s2 / m - d * d);
    } else {
      mean = static_cast<double>(p.mean[c]);
      variance = static_cast<double>(p.variance[c]);
    }
    const double ac = static_cast<double>(p.scale[c]) / sqrt(variance + p.epsilon);
    coef[c] = static_cast<double>(static_cast<T>(ac));
    coef[p.channels + c] =
        static_cast<double>(static_cast<T>(static_cast<double>(p.offset[c]) - mean * ac));
    const double bessel =
        p.training && p.rows > 1 ? static_cast<double>(p.rows) / (p.rows - 1) : 1.0;
    p.batch_mean[c] = p.saved_mean[c] = static_cast<T>(mean);
    p.batch_variance[c] = static_cast<T>(variance * bessel);
    p.saved_variance[c] = static_cast<T>(variance);
  }
}

template <typename T>
__global__ void AffineKernel(const T* x, const double* coef, int64_t n, int64_t channels, T* y) {
  FB_GRID_LOOP(i, n) {
    const int64_t c = i % channels;
    y[i] = x[i] * static_cast<T>(coef[c]) + static_cast<T>(coef[channels + c]);
  }
}

// scale_backprop, offset_backprop and the coefficients a, bx, b0 (coef[0, C), [C, 2C), [2C, 3C))
// of dx = a * dy + bx * (x - mean) + b0.
template <typename T>
__global__ void BackwardFinalizeKernel(BatchNormBackwardArgs<T> p, int64_t row_blocks,
                                       double* coef) {
  FB_GRID_LOOP(c, p.channels) {
    double s1 = 0, s2 = 0;  // no rows: the sums kernel did not run
    if (p.rows > 0) AddPartials(p.scratch, row_blocks, p.channels, c, &s1, &s2);
    const double ic = 1.0 / sqrt(static_cast<double>(p.variance[c]) + p.epsilon);
    const T inv = static_cast<T>(ic);
    const T a = static_cast<T>(static_cast<double>(p.scale[c]) * ic);
    p.scale_backprop[c] = static_cast<T>(s2 * static_cast<double>(inv));
    p.offset_backprop[c] = static_cast<T>(s1);
    double bx = 0, b0 = 0;
    if (p.training && p.rows > 0) {
      const double m = static_cast<double>(p.rows);
      const double inv_d = static_cast<double>(inv);
      bx = static_cast<double>(static_cast<T>(-static_cast<double>(a) * inv_d * inv_d * s2 / m));
      b0 = static_cast<double>(static_cast<T>(-static_cast<double>(a) * s1 / m));
    }
    coef[c] = static_cast<double>(a);
    coef[p.channels + c] = bx;
    coef[2 * p.channels + c] = b0;
  }
}

template <typename T>
__global__ void InputGradKernel(const T* dy, const T* x, const T* mean, const double* coef,
                                bool training, int64_t n, int64_t channels, T* dx) {
  FB_GRID_LOOP(i, n) {
    const int64_t c = i % channels;
    const T a = static_cast<T>(coef[c]);
    if (training) {
      dx[i] = a * dy[i] + static_cast<T>(coef[channels + c]) * (x[i] - mean[c]) +
              static_cast<T>(coef[2 * channels + c]);
    } else {
      dx[i] = a * dy[i];
    }
  }
}

template <typename T, bool kGrad>
void LaunchChannelSums(const T* a, const T* b, const T* center, int64_t rows, int64_t channels,
                       double* partial, cudaStream_t s) {
  const dim3 grid(static_cast<unsigned>((channels + kTx - 1) / kTx),
                  static_cast<unsigned>(RowBlocks(rows)));
  ChannelSumsKernel<T, kGrad><<<grid, dim3(kTx, kTy), 0, s>>>(a, b, center, rows, channels,
                                                              partial);
}

}  // namespace

int64_t BatchNormScratchDoubles(int64_t rows, int64_t channels) {
  return (2 * RowBlocks(rows) + 3) * channels;
}

template <typename T>
void LaunchBatchNormForward(const BatchNormForwardArgs<T>& a, cudaStream_t s) {
  if (a.channels <= 0) return;
  const int64_t row_blocks = RowBlocks(a.rows);
  double* coef = a.scratch + 2 * row_blocks * a.channels;
  if (a.training && a.rows > 0)
    LaunchChannelSums<T, false>(a.x, nullptr, nullptr, a.rows, a.channels, a.scratch, s);
  ForwardFinalizeKernel<T><<<Blocks(a.channels), kThreads, 0, s>>>(a, row_blocks, coef);
  const int64_t n = a.rows * a.channels;
  if (n > 0) AffineKernel<T><<<Blocks(n), kThreads, 0, s>>>(a.x, coef, n, a.channels, a.y);
}

template <typename T>
void LaunchBatchNormBackward(const BatchNormBackwardArgs<T>& a, cudaStream_t s) {
  if (a.channels <= 0) return;
  const int64_t row_blocks = RowBlocks(a.rows);
  double* coef = a.scratch + 2 * row_blocks * a.channels;
  if (a.rows > 0) LaunchChannelSums<T, true>(a.dy, a.x, a.mean, a.rows, a.channels, a.scratch, s);
  BackwardFinalizeKernel<T><<<Blocks(a.channels), kThreads, 0, s>>>(a, row_blocks, coef);
  const int64_t n = a.rows * a.channels;
  if (n > 0)
    InputGradKernel<T><<<Blocks(n), kThreads, 0, s>>>(a.dy, a.x, a.mean, coef, a.training, n,
                                                      a.channels, a.dx);
}

template void LaunchBatchNormForward<float>(const BatchNormForwardArgs<float>&, cudaStream_t);
template void LaunchBatchNormForward<double>(const BatchNormForwardArgs<double>&, cudaStream_t);
template void LaunchBatchNormBackward<float>(const BatchNormBackwardArgs<float>&, cudaStream_t);
template void LaunchBatchNormBackward<double>(const BatchNormBackwardArgs<double>&, cudaStream_t);

}  // namespace fb::gpu
