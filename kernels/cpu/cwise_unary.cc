// CPU kernels of the unary element-wise ops of engine/ops/math_ops.cc: Eigen array expressions
// (vectorised) over the flat tensor, split over the intra-op pool when large (whitepaper 5.4).
#include "engine/framework/op_kernel.h"
#include "engine/framework/thread_pool.h"
#include "kernels/cpu/cwise_binary.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

using cwise::ConstVec;
using cwise::Vec;

// F()(array expression) returns the output expression; kCostNs is a rough cost per element.
template <typename T, typename F, int kCostNs = 1>
class UnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const T* xp = x.data<T>();
    T* yp = y->data<T>();
    ctx->intra_op_pool()->ParallelFor(x.NumElements(), kCostNs, [&](int64_t begin, int64_t end) {
      Vec<T>(yp + begin, end - begin) = F()(ConstVec<T>(xp + begin, end - begin));
    });
  }
};

struct NegFn {
  template <typename A>
  auto operator()(const A& a) const { return -a; }
};
struct SquareFn {
  template <typename A>
  auto operator()(const A& a) const { return a.square(); }
};
struct ExpFn {
  template <typename A>
  auto operator()(const A& a) const { return a.exp(); }
};
struct LogFn {
  template <typename A>
  auto operator()(const A& a) const { return a.log(); }
};
struct SqrtFn {
  template <typename A>
  auto operator()(const A& a) const { return a.sqrt(); }
};
struct RsqrtFn {
  template <typename A>
  auto operator()(const A& a) const { return a.rsqrt(); }
};
struct ReciprocalFn {
  template <typename A>
  auto operator()(const A& a) const { return a.inverse(); }
};

#define FB_REGISTER_NUMERIC(T)                         \
  FB_REGISTER_CPU_T("Neg", T, UnaryOp<T, NegFn>);       \
  FB_REGISTER_CPU_T("Square", T, UnaryOp<T, SquareFn>)

#define FB_REGISTER_FLOATING(T)                                 \
  FB_REGISTER_CPU_T("Exp", T, UnaryOp<T, ExpFn, 4>);            \
  FB_REGISTER_CPU_T("Log", T, UnaryOp<T, LogFn, 4>);            \
  FB_REGISTER_CPU_T("Sqrt", T, UnaryOp<T, SqrtFn, 2>);          \
  FB_REGISTER_CPU_T("Rsqrt", T, UnaryOp<T, RsqrtFn, 2>);        \
  FB_REGISTER_CPU_T("Reciprocal", T, UnaryOp<T, ReciprocalFn, 2>)

FB_REGISTER_NUMERIC(float);
FB_REGISTER_NUMERIC(double);
FB_REGISTER_NUMERIC(int32_t);
FB_REGISTER_NUMERIC(int64_t);
FB_REGISTER_FLOATING(float);
FB_REGISTER_FLOATING(double);

#undef FB_REGISTER_FLOATING
#undef FB_REGISTER_NUMERIC

}  // namespace
}  // namespace fb
