// CUDA kernels of lstm_launch.h. Grid-stride loops over B * C (grid_loop.cuh); the peephole
// gradients sum a column over the batch in one thread per cell (B is a minibatch: tens to
// hundreds of rows).
#include <cstdint>

#include "kernels/cuda/grid_loop.cuh"
#include "kernels/cuda/lstm_launch.h"

namespace fb::gpu {
namespace {

template <typename T>
__device__ T Sigmoid(T v) {
  return T(1) / (T(1) + exp(-v));
}

template <typename T>
__global__ void LstmForwardKernel(LstmForwardArgs<T> a) {
  const int64_t C = a.cells, n = a.batch * C;
  FB_GRID_LOOP(k, n) {
    const int64_t r = k / C, c = k - r * C;
    const T* z = a.icfo + r * 4 * C;
    const T cs_prev = a.cs_prev[k];
    T zi = z[c] + a.bias[c], zci = z[C + c] + a.bias[C + c];
    T zf = z[2 * C + c] + a.bias[2 * C + c] + T(a.forget_bias),
      zo = z[3 * C + c] + a.bias[3 * C + c];
    if (a.use_peephole) {
      zi += a.wci[c] * cs_prev;
      zf += a.wcf[c] * cs_prev;
    }
    const T i = Sigmoid(zi), f = Sigmoid(zf), ci = tanh(zci);
    T cs = ci * i + cs_prev * f;
    if (a.cell_clip > 0) cs = min(max(cs, T(-a.cell_clip)), T(a.cell_clip));
    if (a.use_peephole) zo += a.wco[c] * cs;
    const T o = Sigmoid(zo), co = tanh(cs);
    a.i[k] = i;
    a.cs[k] = cs;
    a.f[k] = f;
    a.o[k] = o;
    a.ci[k] = ci;
    a.co[k] = co;
    a.h[k] = co * o;
  }
}

template <typename T>
__global__ void LstmBackwardKernel(LstmBackwardArgs<T> a) {
  const int64_t C = a.cells, n = a.batch * C;
  FB_GRID_LOOP(k, n) {
    const int64_t r = k / C, c = k - r * C;
    const T i = a.i[k], f = a.f[k], o = a.o[k], ci = a.ci[k], co = a.co[k], h_grad = a.h_grad[k];
    const T d_o = o * (T(1) - o) * h_grad * co;
    T dcs = (T(1) - co * co) * h_grad * o + a.cs_grad[k];
    if (a.use_peephole) dcs += d_o * a.wco[c];
    const T dci = (T(1) - ci * ci) * dcs * i;
    const T df = f * (T(1) - f) * dcs * a.cs_prev[k];
    const T di = i * (T(1) - i) * dcs * ci;
    T* d = a.dicfo + r * 4 * C;
    d[c] = di;
    d[C + c] = dci;
    d[2 * C + c] = df;
    d[3 * C + c] = d_o;
    T cs_prev_grad = dcs * f;
    if (a.use_peephole) cs_prev_grad += di * a.wci[c] + df * a.wcf[c];
    a.cs_prev_grad[k] = cs_prev_grad;
  }
}

// wci_grad[c] = sum_r di * cs_prev, wcf_grad = sum_r df * cs_prev, wco_grad = sum_r do * cs (or
// zeros without peepholes).
template <typename T>
__global__ void LstmPeepholeGradKernel(LstmBackwardArgs<T> a) {
  const int64_t C = a.cells;
  FB_GRID_LOOP(c, C) {
    T gi = 0, gf = 0, go = 0;
    if (a.use_peephole) {
      for (int64_t r = 0; r < a.batch; ++r) {
        const T* d = a.dicfo + r * 4 * C;
        gi += d[c] * a.cs_prev[r * C + c];
        gf += d[2 * C + c] * a.cs_prev[r * C + c];
        go += d[3 * C + c] * a.cs[r * C + c];
      }
    }
    a.wci_grad[c] = gi;
    a.wcf_grad[c] = gf;
    a.wco_grad[c] = go;
  }
}

}  // namespace

template <typename T>
void LaunchLstmForward(const LstmForwardArgs<T>& a, cudaStream_t s) {
  const int64_t n = a.batch * a.cells;
  if (n > 0) LstmForwardKernel<T><<<Blocks(n), kThreads, 0, s>>>(a);
}

template <typename T>
void LaunchLstmBackward(const LstmBackwardArgs<T>& a, cudaStream_t s) {
  const int64_t n = a.batch * a.cells;
  if (n > 0) LstmBackwardKernel<T><<<Blocks(n), kThreads, 0, s>>>(a);
  if (a.cells > 0) LstmPeepholeGradKernel<T><<<Blocks(a.cells), kThreads, 0, s>>>(a);
}

template void LaunchLstmForward<float>(const LstmForwardArgs<float>&, cudaStream_t);
template void LaunchLstmForward<double>(const LstmForwardArgs<double>&, cudaStream_t);
template void LaunchLstmBackward<float>(const LstmBackwardArgs<float>&, cudaStream_t);
template void LaunchLstmBackward<double>(const LstmBackwardArgs<double>&, cudaStream_t);

}  // namespace fb::gpu
