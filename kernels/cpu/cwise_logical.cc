// CPU kernels of GreaterEqual, LessEqual, NotEqual, LogicalAnd, LogicalOr and LogicalNot
// (engine/ops/math_logical_ops.cc). The binary ones share the broadcasting kernel of every
// binary element-wise op (cwise::BinaryOp, kernels/cpu/cwise_binary.h) with an Eigen functor.
#include "kernels/cpu/cwise_binary.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

namespace ei = Eigen::internal;
using cwise::BinaryOp;

// Scalar functors for bool operands (no packet path: Eigen evaluates them one by one).
struct LogicalAndFn {
  using result_type = bool;
  bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOrFn {
  using result_type = bool;
  bool operator()(bool a, bool b) const { return a || b; }
};

class LogicalNotOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const bool* in = x.data<bool>();
    bool* out = y->data<bool>();
    for (int64_t i = 0; i < x.NumElements(); ++i) out[i] = !in[i];
  }
};

#define FB_REGISTER_COMPARISONS(T)                                                        \
  FB_REGISTER_CPU_T("GreaterEqual", T, BinaryOp<T, ei::scalar_cmp_op<T, T, ei::cmp_GE>>); \
  FB_REGISTER_CPU_T("LessEqual", T, BinaryOp<T, ei::scalar_cmp_op<T, T, ei::cmp_LE>>);    \
  FB_REGISTER_CPU_T("NotEqual", T, BinaryOp<T, ei::scalar_cmp_op<T, T, ei::cmp_NEQ>>)

FB_REGISTER_COMPARISONS(float);
FB_REGISTER_COMPARISONS(double);
FB_REGISTER_COMPARISONS(int32_t);
FB_REGISTER_COMPARISONS(int64_t);
FB_REGISTER_CPU_T("NotEqual", bool, BinaryOp<bool, ei::scalar_cmp_op<bool, bool, ei::cmp_NEQ>>);
REGISTER_KERNEL(KernelDefBuilder("LogicalAnd").Device(DEVICE_CPU), BinaryOp<bool, LogicalAndFn>);
REGISTER_KERNEL(KernelDefBuilder("LogicalOr").Device(DEVICE_CPU), BinaryOp<bool, LogicalOrFn>);
REGISTER_KERNEL(KernelDefBuilder("LogicalNot").Device(DEVICE_CPU), LogicalNotOp);

#undef FB_REGISTER_COMPARISONS

}  // namespace
}  // namespace fb
