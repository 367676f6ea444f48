#pragma once
// Launchers of the batch-normalization CUDA kernels (batch_norm_kernels.cu) used by
// batch_norm_ops.cc: FusedBatchNorm / FusedBatchNormGrad over x viewed as a row-major [rows, C]
// matrix (NHWC, rows = N*H*W). They follow kernels/cpu/batch_norm_kernels.cc formula for formula
// (not cuDNN, whose saved statistics are the mean and 1/sqrt(variance + epsilon) while flowbench's
// reserve_space_2 is the biased variance, and which rejects epsilon < 1e-5): per-channel sums in
// double (the variance from the data shifted by the channel's first value), per-channel
// coefficients rounded to T as the CPU kernel rounds them, and the element-wise pass in T.
// Plain pointers only (device memory); every launcher enqueues on `stream` and returns at once.
// Implemented for T = float and double.
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

// Doubles of device scratch memory that the launchers below need for [rows, channels].
int64_t BatchNormScratchDoubles(int64_t rows, int64_t channels);

template <typename T>
struct BatchNormForwardArgs {
  const T* x = nullptr;  // [rows, channels]
  const T* scale = nullptr;
  const T* offset = nullptr;
  const T* mean = nullptr;      // inference only: the given mean [channels]
  const T* variance = nullptr;  // inference only: the given variance [channels]
  T* y = nullptr;               // [rows, channels]
  T* batch_mean = nullptr;      // [channels] each
  T* batch_variance = nullptr;  // unbiased (times rows / (rows - 1)) when training
  T* saved_mean = nullptr;      // reserve_space_1
  T* saved_variance = nullptr;  // reserve_space_2: the biased variance y was normalized with
  int64_t rows = 0, channels = 0;
  double epsilon = 0;
  bool training = true;
  double* scratch = nullptr;  // BatchNormScratchDoubles(rows, channels)
};
// y = (x - m) * scale / sqrt(v + epsilon) + offset with m, v the batch moments (training) or the
// given mean and variance. Training with rows == 0 writes NaN statistics. channels > 0.
template <typename T>
void LaunchBatchNormForward(const BatchNormForwardArgs<T>& a, cudaStream_t stream);

template <typename T>
struct BatchNormBackwardArgs {
  const T* dy = nullptr;  // [rows, channels]
  const T* x = nullptr;   // [rows, channels]
  const T* scale = nullptr;
  const T* mean = nullptr;      // reserve_space_1
  const T* variance = nullptr;  // reserve_space_2
  T* dx = nullptr;              // [rows, channels]
  T* scale_backprop = nullptr;  // [channels]
  T* offset_backprop = nullptr;
  int64_t rows = 0, channels = 0;
  double epsilon = 0;
  bool training = true;
  double* scratch = nullptr;  // BatchNormScratchDoubles(rows, channels)
};
// The gradients of FusedBatchNormGrad's op documentation. channels > 0.
template <typename T>
void LaunchBatchNormBackward(const BatchNormBackwardArgs<T>& a, cudaStream_t stream);

}  // namespace fb::gpu
