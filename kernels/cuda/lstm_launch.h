#pragma once
// Launchers of the LSTMBlockCell kernels (lstm_kernels.cu), the element-wise parts of the GPU
// LSTMBlockCell / LSTMBlockCellGrad (lstm_ops.cc; the GEMM is cuBLAS's). Formulas: TensorFlow's
// contrib/rnn/kernels/lstm_ops.h, as kernels/cpu/lstm_kernels.cc. All arrays row-major, [B, C]
// unless noted; plain device pointers, enqueued on `s`, returning at once (launch errors surface
// through cudaGetLastError). T = float, double.
#include <cuda_runtime.h>

#include <cstdint>

namespace fb::gpu {

template <typename T>
struct LstmForwardArgs {
  const T* icfo = nullptr;     // [B, 4C] xh w, bias not yet added
  const T* bias = nullptr;     // [4C]
  const T* cs_prev = nullptr;
  const T* wci = nullptr;      // [C] peepholes, read when use_peephole
  const T* wcf = nullptr;
  const T* wco = nullptr;
  T *i = nullptr, *cs = nullptr, *f = nullptr, *o = nullptr, *ci = nullptr, *co = nullptr,
    *h = nullptr;
  int64_t batch = 0, cells = 0;
  float forget_bias = 1.0f, cell_clip = -1.0f;  // cell_clip <= 0: none
  bool use_peephole = false;
};

// The gates from the pre-activations: one thread per (row, cell).
template <typename T>
void LaunchLstmForward(const LstmForwardArgs<T>& a, cudaStream_t s);

template <typename T>
struct LstmBackwardArgs {
  const T *cs_prev = nullptr, *i = nullptr, *cs = nullptr, *f = nullptr, *o = nullptr,
          *ci = nullptr, *co = nullptr, *cs_grad = nullptr, *h_grad = nullptr;
  const T *wci = nullptr, *wcf = nullptr, *wco = nullptr;  // [C], read when use_peephole
  T* cs_prev_grad = nullptr;
  T* dicfo = nullptr;                                      // [B, 4C]
  T *wci_grad = nullptr, *wcf_grad = nullptr, *wco_grad = nullptr;  // [C]
  int64_t batch = 0, cells = 0;
  bool use_peephole = false;
};

// dicfo and cs_prev_grad, one thread per (row, cell); then the peephole gradients (column sums
// over the batch, one thread per cell), or zeros without peepholes.
template <typename T>
void LaunchLstmBackward(const LstmBackwardArgs<T>& a, cudaStream_t s);

}  // namespace fb::gpu
