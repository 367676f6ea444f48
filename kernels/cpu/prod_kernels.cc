// CPU kernel of Prod (engine/ops/math_prod_argmin_ops.cc) for float, double, int32 and int64, on
// the reduction machinery of the other reductions (kernels/cpu/reduction.h).
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

struct ProdReducer {
  template <typename T>
  static T Identity() {
    return T(1);
  }
  template <typename A>
  static auto Reduce(const A& a) {
    return a.prod();
  }
  template <typename A, typename B>
  static void Accumulate(A& acc, const B& b) {
    acc *= b;
  }
};

template <typename T>
class ProdOp : public OpKernel {
 public:
  explicit ProdOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("keep_dims", &keep_dims_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    auto mask = ReductionMask(ctx->input(1), x.dims());
    OP_REQUIRES_OK(ctx, mask.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ReducedShape(x.shape(), *mask, keep_dims_), &out));
    OP_REQUIRES_OK(ctx, (reduction::Reduce<T, ProdReducer>(ctx, x, *mask, out)));
  }

 private:
  bool keep_dims_ = false;
};

FB_REGISTER_CPU_T("Prod", float, ProdOp<float>);
FB_REGISTER_CPU_T("Prod", double, ProdOp<double>);
FB_REGISTER_CPU_T("Prod", int32_t, ProdOp<int32_t>);
FB_REGISTER_CPU_T("Prod", int64_t, ProdOp<int64_t>);

}  // namespace
}  // namespace fb
