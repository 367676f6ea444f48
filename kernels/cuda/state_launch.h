#pragma once
// Launchers of the CUDA kernels behind the state, constant, cast, AddN, ArgMax and sparse loss
// ops (state_kernels.cu, loss_kernels.cu), in the style of gpu_launch.h: plain device pointers
// and element counts, enqueued on `s`, returning at once; launch errors surface through
// cudaGetLastError (GpuDevice::Compute turns them into a Status). Counts are int64 and every
// kernel is a grid-stride loop, so any tensor size is covered. Instantiated types are listed
// per launcher.
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

// var[i] += value[i] (add) or var[i] -= value[i] for i < n: AssignAdd, AssignSub.
// T = float, double, int32_t, int64_t.
template <typename T>
void LaunchAssignUpdate(T* var, const T* value, bool add, int64_t n, cudaStream_t s);

// out[i] = value for i < n. T = float, double, int32_t, int64_t, bool.
template <typename T>
void LaunchFillValue(T* out, T value, int64_t n, cudaStream_t s);
// out[i] = *value (a scalar in device memory, read by the kernel: no host wait).
// T = float, double, int32_t, int64_t, bool.
template <typename T>
void LaunchFillFromDevice(T* out, const T* value, int64_t n, cudaStream_t s);

// out[i] = sum over k < num_inputs of inputs[k][i] for i < n, any num_inputs >= 1 (the
// pointers are passed in chunks of kAddNChunk per launch). `out` may not alias an input other
// than inputs[0]. T = float, double, int32_t, int64_t.
inline constexpr int kAddNChunk = 8;
template <typename T>
void LaunchAddN(const T* const* inputs, int num_inputs, T* out, int64_t n, cudaStream_t s);

// y[i] = static_cast<Dst>(x[i]); to bool: x != 0; bool to numbers: 0 or 1 (Cast's rules,
// engine/ops/math_ops.cc). Src, Dst in {float, double, int32_t, int64_t, bool}.
template <typename Src, typename Dst>
void LaunchCast(const Src* x, Dst* y, int64_t n, cudaStream_t s);

// out[o * inner + c] = index k of the largest in[o, k, c] over k < r (row-major [outer, r,
// inner], r >= 1): the first of equal maxima, or the first NaN when the slice has one (the CPU
// kernel's rule, NumPy's argmax). T = float, double, int32_t, int64_t; Tout = int32_t, int64_t.
template <typename T, typename Tout>
void LaunchArgMax(const T* in, Tout* out, int64_t outer, int64_t r, int64_t inner,
                  cudaStream_t s);

// SparseSoftmaxCrossEntropyWithLogits over rows of features [batch, classes] with labels
// [batch]: loss[b] = logsumexp(x_b) - x_b[label_b], backprop[b, c] = softmax(x_b)[c] -
// (c == label_b). A label outside [0, classes) makes its row NaN and is reported in `bad`
// (device memory, 2 int64, written by the launched kernels): bad[0] = the smallest such row
// index, or -1 when every label is valid; bad[1] = that row's label. T = float, double;
// Index = int32_t, int64_t.
template <typename T, typename Index>
void LaunchSparseSoftmaxXent(const T* features, const Index* labels, T* loss, T* backprop,
                             int64_t batch, int64_t classes, int64_t* bad, cudaStream_t s);

}  // namespace fb::gpu
