#pragma once
// The attrs, input checks and outputs that the CPU and GPU FusedBatchNorm / FusedBatchNormGrad
// kernels share (engine/ops/nn_ops_batch_norm.cc): x and y_backprop are 4-D NHWC, the per-channel
// vectors 1-D with C elements; errors are InvalidArgument naming the input, identical on both
// devices.
#include <cstdint>

#include "engine/framework/op_kernel.h"

namespace fb::batch_norm {

struct Attrs {
  float epsilon = 1e-4f;
  bool is_training = true;
};

// epsilon, is_training and data_format; data_format other than NHWC or epsilon < 0 fail
// construction (the status is set on `ctx`).
Attrs ParseAttrs(OpKernelConstruction* ctx);

// x [N, H, W, C] viewed as rows x channels (rows = N*H*W).
struct Dims {
  int64_t rows = 0;
  int64_t channels = 0;
};

// FusedBatchNorm: checks x, scale, offset, mean, variance (mean and variance may be empty in
// training) and allocates y (x's shape) and the four [C] outputs into out[0..4].
StatusOr<Dims> AllocateForward(OpKernelContext* ctx, const Attrs& attrs, Tensor* out[5]);

// FusedBatchNormGrad: checks y_backprop, x (same shape), scale, reserve_space_1 and _2, and
// allocates x_backprop, scale_backprop, offset_backprop and the two empty reserve outputs.
StatusOr<Dims> AllocateGrad(OpKernelContext* ctx, Tensor* out[5]);

// The kernel of FusedBatchNorm (kGrad = false) or FusedBatchNormGrad (kGrad = true) on any device:
// parses the attrs, then Compute checks the inputs and allocates the outputs (AllocateForward or
// AllocateGrad) and calls the device's Run with them.
template <bool kGrad>
class OpBase : public OpKernel {
 public:
  explicit OpBase(OpKernelConstruction* ctx) : OpKernel(ctx), attrs_(ParseAttrs(ctx)) {}

  void Compute(OpKernelContext* ctx) final {
    Tensor* out[5];
    auto dims = kGrad ? AllocateGrad(ctx, out) : AllocateForward(ctx, attrs_, out);
    OP_REQUIRES_OK(ctx, dims.status());
    Run(ctx, *dims, out);
  }

 protected:
  // Computes the outputs `out` (allocated, see AllocateForward and AllocateGrad) from the inputs.
  virtual void Run(OpKernelContext* ctx, const Dims& dims, Tensor* out[5]) = 0;

  Attrs attrs_;
};

}  // namespace fb::batch_norm
