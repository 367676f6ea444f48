// Element-wise CUDA kernels: unary and broadcasting binary math, comparisons, the activation
// gradients, the optimizer updates and CheckNumerics (launchers declared in gpu_launch.h).
// Grid-stride loops with 256-thread blocks; one template per functor, dispatched on the host.
#include <cmath>

#include "kernels/cuda/gpu_launch.h"
#include "kernels/cuda/grid_loop.cuh"

namespace fb::gpu {
namespace {

template <typename T, typename F>
__global__ void UnaryKernel(const T* x, T* y, int64_t n, F f) {
  FB_GRID_LOOP(i, n) y[i] = f(x[i]);
}

template <typename T>
struct Unary {
  UnaryFn fn;
  __device__ T operator()(T a) const {
    switch (fn) {
      case UnaryFn::kNeg: return -a;
      case UnaryFn::kSquare: return a * a;
      case UnaryFn::kExp: return exp(a);
      case UnaryFn::kLog: return log(a);
      case UnaryFn::kSqrt: return sqrt(a);
      case UnaryFn::kRsqrt: return T(1) / sqrt(a);
      case UnaryFn::kReciprocal: return T(1) / a;
    }
    return a;
  }
};

template <typename T>
struct Binary {
  BinaryFn fn;
  __device__ T operator()(T a, T b) const {
    switch (fn) {
      case BinaryFn::kAdd: return a + b;
      case BinaryFn::kSub: return a - b;
      case BinaryFn::kMul: return a * b;
      case BinaryFn::kDiv: return a / b;
      case BinaryFn::kMaximum: return a > b ? a : b;
      case BinaryFn::kMinimum: return a < b ? a : b;
      case BinaryFn::kPow: return pow(a, b);
      case BinaryFn::kReluGrad: return b > T(0) ? a : T(0);
      case BinaryFn::kSigmoidGrad: return b * a * (T(1) - a);
      case BinaryFn::kTanhGrad: return b * (T(1) - a * a);
    }
    return a;
  }
};

template <typename T>
struct Compare {
  CompareFn fn;
  __device__ bool operator()(T a, T b) const {
    switch (fn) {
      case CompareFn::kGreater: return a > b;
      case CompareFn::kLess: return a < b;
      case CompareFn::kEqual: return a == b;
    }
    return false;
  }
};

// Offsets of output element i in x and y under the broadcast.
__device__ inline void Offsets(const BroadcastShape& b, int64_t i, int64_t* xo, int64_t* yo) {
  *xo = 0;
  *yo = 0;
  for (int d = b.rank - 1; d >= 0; --d) {
    int64_t idx = i % b.dims[d];
    i /= b.dims[d];
    *xo += idx * b.x_strides[d];
    *yo += idx * b.y_strides[d];
  }
}

template <typename T, typename Out, typename F>
__global__ void BinaryKernel(const T* x, const T* y, Out* z, int64_t n, BroadcastShape b, F f) {
  FB_GRID_LOOP(i, n) {
    int64_t xo, yo;
    Offsets(b, i, &xo, &yo);
    z[i] = f(x[xo], y[yo]);
  }
}

template <typename T>
__global__ void GradientDescentKernel(T* var, const T* lr, const T* grad, int64_t n) {
  FB_GRID_LOOP(i, n) var[i] -= *lr * grad[i];
}

template <typename T>
__global__ void MomentumKernel(T* var, T* accum, const T* lr, const T* grad, const T* momentum,
                               bool nesterov, int64_t n) {
  const T l = *lr, mu = *momentum;
  FB_GRID_LOOP(i, n) {
    accum[i] = accum[i] * mu + grad[i];
    var[i] -= nesterov ? grad[i] * l + accum[i] * mu * l : accum[i] * l;
  }
}

template <typename T>
struct AdamScalars {
  const T* p[6];
};

template <typename T>
__global__ void AdamKernel(T* var, T* m, T* v, AdamScalars<T> s, const T* grad, bool nesterov,
                           int64_t n) {
  const T beta1_power = *s.p[0], beta2_power = *s.p[1], lr = *s.p[2];
  const T beta1 = *s.p[3], beta2 = *s.p[4], epsilon = *s.p[5];
  const T lr_t = lr * sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
  FB_GRID_LOOP(i, n) {
    const T g = grad[i];
    m[i] += (g - m[i]) * (T(1) - beta1);
    v[i] += (g * g - v[i]) * (T(1) - beta2);
    const T step = nesterov ? (m[i] * beta1 + (T(1) - beta1) * g) : m[i];
    var[i] -= step * lr_t / (sqrt(v[i]) + epsilon);
  }
}

template <typename T>
__global__ void CheckNumericsKernel(const T* x, int64_t n, int* flags) {
  int local = 0;
  FB_GRID_LOOP(i, n) {
    if (isnan(x[i])) local |= 1;
    else if (isinf(x[i])) local |= 2;
  }
  if (local) atomicOr(flags, local);
}

}  // namespace

template <typename T>
void LaunchUnary(UnaryFn fn, const T* x, T* y, int64_t n, cudaStream_t stream) {
  if (n > 0) UnaryKernel<<<Blocks(n), kThreads, 0, stream>>>(x, y, n, Unary<T>{fn});
}

template <typename T>
void LaunchBinary(BinaryFn fn, const T* x, const T* y, T* z, int64_t n, const BroadcastShape& b,
                  cudaStream_t stream) {
  if (n > 0) BinaryKernel<<<Blocks(n), kThreads, 0, stream>>>(x, y, z, n, b, Binary<T>{fn});
}

template <typename T>
void LaunchCompare(CompareFn fn, const T* x, const T* y, bool* z, int64_t n,
                   const BroadcastShape& b, cudaStream_t stream) {
  if (n > 0) BinaryKernel<<<Blocks(n), kThreads, 0, stream>>>(x, y, z, n, b, Compare<T>{fn});
}

template <typename T>
void LaunchApplyGradientDescent(T* var, const T* lr, const T* grad, int64_t n, cudaStream_t s) {
  if (n > 0) GradientDescentKernel<<<Blocks(n), kThreads, 0, s>>>(var, lr, grad, n);
}

template <typename T>
void LaunchApplyMomentum(T* var, T* accum, const T* lr, const T* grad, const T* momentum,
                         bool nesterov, int64_t n, cudaStream_t s) {
  if (n > 0)
    MomentumKernel<<<Blocks(n), kThreads, 0, s>>>(var, accum, lr, grad, momentum, nesterov, n);
}

template <typename T>
void LaunchApplyAdam(T* var, T* m, T* v, const T* const* scalars, const T* grad, bool nesterov,
                     int64_t n, cudaStream_t s) {
  AdamScalars<T> sc;
  for (int i = 0; i < 6; ++i) sc.p[i] = scalars[i];
  if (n > 0) AdamKernel<<<Blocks(n), kThreads, 0, s>>>(var, m, v, sc, grad, nesterov, n);
}

template <typename T>
void LaunchCheckNumerics(const T* x, int64_t n, int* flags, cudaStream_t s) {
  if (n > 0) CheckNumericsKernel<<<Blocks(n), kThreads, 0, s>>>(x, n, flags);
}

#define FB_INSTANTIATE(T)                                                                      \
  template void LaunchUnary<T>(UnaryFn, const T*, T*, int64_t, cudaStream_t);                  \
  template void LaunchBinary<T>(BinaryFn, const T*, const T*, T*, int64_t,                     \
                                const BroadcastShape&, cudaStream_t);                          \
  template void LaunchCompare<T>(CompareFn, const T*, const T*, bool*, int64_t,                \
                                 const BroadcastShape&, cudaStream_t);                         \
  template void LaunchApplyGradientDescent<T>(T*, const T*, const T*, int64_t, cudaStream_t);  \
  template void LaunchApplyMomentum<T>(T*, T*, const T*, const T*, const T*, bool, int64_t,    \
                                       cudaStream_t);                                          \
  template void LaunchApplyAdam<T>(T*, T*, T*, const T* const*, const T*, bool, int64_t,       \
                                   cudaStream_t);                                              \
  template void LaunchCheckNumerics<T>(const T*, int64_t, int*, cudaStream_t);
FB_INSTANTIATE(float)
FB_INSTANTIATE(double)
#undef FB_INSTANTIATE
// Integer comparisons (metric_ops.cc registers Equal: the accuracy metric's argmax == labels).
template void LaunchCompare<int32_t>(CompareFn, const int32_t*, const int32_t*, bool*, int64_t,
                                     const BroadcastShape&, cudaStream_t);
template void LaunchCompare<int64_t>(CompareFn, const int64_t*, const int64_t*, bool*, int64_t,
                                     const BroadcastShape&, cudaStream_t);

}  // namespace fb::gpu
