#pragma once
// The attrs, input checks and outputs that the CPU and GPU LSTMBlockCell / LSTMBlockCellGrad
// kernels share (engine/ops/rnn_ops_lstm.cc). Shapes: x [B, I], cs_prev [B, C], h_prev [B, H],
// w [I + H, 4C] (icfo column blocks), wci/wcf/wco [C], b [4C]; the grad's i, cs, f, o, ci, co,
// cs_grad, h_grad [B, C]. Errors are InvalidArgument naming the input, identical on both devices.
#include <cstdint>

#include "engine/framework/op_kernel.h"

namespace fb::lstm {

struct Attrs {
  float forget_bias = 1.0f;
  float cell_clip = 3.0f;  // <= 0: no clipping
  bool use_peephole = false;
};

// forget_bias and cell_clip (forward only) and use_peephole; a non-finite forget_bias or
// cell_clip fails construction (the status is set on `ctx`).
Attrs ParseAttrs(OpKernelConstruction* ctx, bool grad);

struct Dims {
  int64_t batch = 0, input = 0, hidden = 0, cells = 0;
};

// Checks the inputs (8 for the forward, 16 for the grad) and allocates the outputs into out[]:
// forward i, cs, f, o, ci, co, h [B, C]; grad cs_prev_grad [B, C], dicfo [B, 4C],
// wci/wcf/wco_grad [C].
StatusOr<Dims> CheckAndAllocate(OpKernelContext* ctx, bool grad, Tensor* out[7]);

// The kernel of LSTMBlockCell (kGrad = false) or LSTMBlockCellGrad (kGrad = true) on any device:
// Compute checks the inputs, allocates the outputs and calls the device's Run with them
// (not called when an output is empty).
template <bool kGrad>
class OpBase : public OpKernel {
 public:
  explicit OpBase(OpKernelConstruction* ctx) : OpKernel(ctx), attrs_(ParseAttrs(ctx, kGrad)) {}

  void Compute(OpKernelContext* ctx) final {
    Tensor* out[7] = {};
    auto dims = CheckAndAllocate(ctx, kGrad, out);
    OP_REQUIRES_OK(ctx, dims.status());
    if (dims->batch == 0 && !kGrad) return;
    if (dims->cells == 0) return;
    Run(ctx, *dims, out);
  }

 protected:
  virtual void Run(OpKernelContext* ctx, const Dims& dims, Tensor* out[7]) = 0;

  Attrs attrs_;
};

}  // namespace fb::lstm
