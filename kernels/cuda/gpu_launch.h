#pragma once
// Launchers of the hand-written CUDA kernels (cwise_kernels.cu, reduce_kernels.cu,
// random_kernels.cu). Plain pointers and sizes only, so the op kernels (*.cc, compiled by the host
// compiler) never include device code. Every launcher enqueues on `stream` and returns at once;
// launch errors surface through cudaGetLastError (GpuDevice::Compute turns them into a Status).
// Implemented for T = float and double (LaunchCompare also for int32_t and int64_t).
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

enum class UnaryFn { kNeg, kSquare, kExp, kLog, kSqrt, kRsqrt, kReciprocal };
// y[i] = fn(x[i]) for i < n.
template <typename T>
void LaunchUnary(UnaryFn fn, const T* x, T* y, int64_t n, cudaStream_t stream);

enum class BinaryFn {
  kAdd, kSub, kMul, kDiv, kMaximum, kMinimum, kPow,
  kReluGrad,     // x = gradients, y = features: x * (y > 0)
  kSigmoidGrad,  // x = y (the sigmoid), y = dy: dy * y * (1 - y)
  kTanhGrad,     // x = y (the tanh), y = dy: dy * (1 - y^2)
};
enum class CompareFn { kGreater, kLess, kEqual };

// NumPy broadcasting after BCast's collapse: the output is `rank` dims (row-major) and each
// operand is read at sum(index[d] * strides[d]) (stride 0 where it is repeated).
inline constexpr int kMaxBroadcastDims = 8;
struct BroadcastShape {
  int rank = 0;
  int64_t dims[kMaxBroadcastDims] = {};
  int64_t x_strides[kMaxBroadcastDims] = {};
  int64_t y_strides[kMaxBroadcastDims] = {};
};
// z[i] = fn(x[.], y[.]) over the n = prod(dims) output elements.
template <typename T>
void LaunchBinary(BinaryFn fn, const T* x, const T* y, T* z, int64_t n, const BroadcastShape& b,
                  cudaStream_t stream);
template <typename T>
void LaunchCompare(CompareFn fn, const T* x, const T* y, bool* z, int64_t n,
                   const BroadcastShape& b, cudaStream_t stream);

// Optimizer updates in place (formulas of kernels/cpu/training_ops.cc); scalars are read from
// device memory, so no host synchronisation is needed.
template <typename T>
void LaunchApplyGradientDescent(T* var, const T* lr, const T* grad, int64_t n, cudaStream_t s);
template <typename T>
void LaunchApplyMomentum(T* var, T* accum, const T* lr, const T* grad, const T* momentum,
                         bool nesterov, int64_t n, cudaStream_t s);
// scalars: beta1_power, beta2_power, lr, beta1, beta2, epsilon (six device pointers).
template <typename T>
void LaunchApplyAdam(T* var, T* m, T* v, const T* const* scalars, const T* grad, bool nesterov,
                     int64_t n, cudaStream_t s);

// flags[0] |= 1 if any x is NaN, flags[0] |= 2 if any is infinite. `flags` is device memory.
template <typename T>
void LaunchCheckNumerics(const T* x, int64_t n, int* flags, cudaStream_t s);

enum class ReduceFn { kSum, kMax, kMin };
// out[o, c] = reduce over k of in[o, k, c] for a row-major [outer, r, inner] input, times `scale`
// (1, or 1/r for Mean).
template <typename T>
void LaunchReduce3D(ReduceFn fn, const T* in, T* out, int64_t outer, int64_t r, int64_t inner,
                    T scale, cudaStream_t s);
// SoftmaxCrossEntropyWithLogits over rows of [batch, classes]: loss[b] and backprop[b, c].
template <typename T>
void LaunchSoftmaxXent(const T* logits, const T* labels, T* loss, T* backprop, int64_t batch,
                       int64_t classes, cudaStream_t s);

enum class RandomDist { kUniform, kNormal, kTruncatedNormal };
// Philox 4x32-10 from (key, counter) as kernels/cpu/philox_random.h: group g of 4 (float) or
// 2 (double) outputs uses counter + g, or counter + g * 256 * group / 4 for truncated normal,
// so results equal the CPU kernels' for the same seeds.
template <typename T>
void LaunchPhilox(RandomDist dist, const uint32_t key[2], const uint32_t counter[4], T* out,
                  int64_t n, cudaStream_t s);

}  // namespace fb::gpu
