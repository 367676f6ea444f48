#pragma once
// The two kernel shapes of the element-wise activations (kernels/cpu/activation_kernels.cc,
// kernels/cpu/elu_relu6_kernels.cc): y = F(x), and z = F(a, b) for the gradient ops, whose two
// inputs must have the same shape (InvalidArgument naming both otherwise). Vectorised by Eigen
// and sharded over the intra-op pool.
#include "kernels/cpu/nn_kernel_util.h"

namespace fb::nn {

// y = F(x) element-wise; F::Apply(x, &y) works on Eigen array segments; F::kCostNs is a rough
// cost per element.
template <typename T, typename F>
class UnaryKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    Shard(ctx, x.NumElements(), F::kCostNs, [&](int64_t b, int64_t e) {
      ArrayMap<T> out = Segment<T>(*y, b, e);
      F::Apply(Segment<T>(x, b, e), &out);
    });
  }
};

// z = F::Apply(a, b) element-wise; F::kNameA and F::kNameB name the inputs in errors.
template <typename T, typename F>
class BinaryGradKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckSameShape(a, F::kNameA, b, F::kNameB));
    Tensor* z;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &z));
    Shard(ctx, a.NumElements(), 1, [&](int64_t lo, int64_t hi) {
      Segment<T>(*z, lo, hi) = F::Apply(Segment<T>(a, lo, hi), Segment<T>(b, lo, hi));
    });
  }
};

}  // namespace fb::nn
