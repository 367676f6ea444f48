#pragma once
// The part of the MatMul and BatchMatMul kernels (engine/ops/math_matrix_ops.cc) that the CPU
// (kernels/cpu/matmul.cc) and the GPU (kernels/cuda/matmul_ops.cc) share: the transpose attrs,
// the shape checks (PlanMatMul: InvalidArgument naming both shapes) and the output allocation;
// each device supplies the products.
#include "engine/framework/op_kernel.h"
#include "kernels/cpu/matmul.h"

namespace fb {

// MatMul (kBatched = false: both inputs exactly 2-D, attrs transpose_a/transpose_b) and
// BatchMatMul (rank >= 2, equal batch dimensions, attrs adj_x/adj_y). Compute checks the inputs,
// allocates output 0 (a's batch dimensions, then [m, n]) and calls Multiply.
template <bool kBatched>
class MatMulOpBase : public OpKernel {
 public:
  explicit MatMulOpBase(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr(kBatched ? "adj_x" : "transpose_a", &transpose_a_));
    c->SetStatus(c->GetAttr(kBatched ? "adj_y" : "transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) final {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    auto p = PlanMatMul(a.shape(), transpose_a_, b.shape(), transpose_b_, kBatched);
    OP_REQUIRES_OK(ctx, p.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, p->out_shape, &out));
    OP_REQUIRES_OK(ctx, Multiply(ctx, *p, a, b, out));
  }

 protected:
  // out = op(a) x op(b), p.batch products of p.dims, each operand dense and row-major.
  virtual Status Multiply(OpKernelContext* ctx, const MatMulPlan& p, const Tensor& a,
                          const Tensor& b, Tensor* out) = 0;

  bool transpose_a_ = false, transpose_b_ = false;
};

}  // namespace fb
