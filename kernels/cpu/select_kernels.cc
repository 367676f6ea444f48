// CPU kernels of Select and Where (engine/ops/array_select_ops.cc). Select works for every dtype
// (VisitDataType); a scalar condition forwards t or e without copying. Where takes bool and
// numeric inputs and writes int64 coordinates.
#include <algorithm>

#include "engine/framework/op_kernel.h"
#include "engine/ops/array_select_util.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

class SelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    auto shape = SelectShape(cond.shape(), t.shape(), e.shape());
    OP_REQUIRES_OK(ctx, shape.status());
    if (cond.dims() == 0) {
      ctx->forward_input(cond.scalar<bool>() ? 1 : 2, 0);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const int64_t n = out->NumElements();
    if (n == 0) return;
    // Element-wise when condition has t's shape, else one condition value per row of t.
    const int64_t inner = cond.shape() == *shape ? 1 : n / t.dim_size(0);
    const bool* c = cond.data<bool>();
    VisitDataType(t.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* tp = t.data<T>();
      const T* ep = e.data<T>();
      T* op = out->data<T>();
      for (int64_t r = 0; r < n / inner; ++r) {
        const T* src = c[r] ? tp : ep;
        std::copy(src + r * inner, src + (r + 1) * inner, op + r * inner);
      }
    });
  }
};

template <typename T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const T* in = x.data<T>();
    const int64_t n = x.NumElements();
    const int64_t count = std::count_if(in, in + n, [](const T& v) { return v != T(0); });
    const int rank = x.dims();
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{count, rank}, &out));
    int64_t* index = out->data<int64_t>();
    std::vector<int64_t> coord(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      if (in[i] != T(0)) index = std::copy(coord.begin(), coord.end(), index);
      for (int d = rank - 1; d >= 0 && ++coord[d] == x.dim_size(d); --d) coord[d] = 0;
    }
  }
};

REGISTER_KERNEL(KernelDefBuilder("Select").Device(DEVICE_CPU), SelectOp);
FB_REGISTER_CPU_T("Where", bool, WhereOp<bool>);
FB_REGISTER_CPU_T("Where", float, WhereOp<float>);
FB_REGISTER_CPU_T("Where", double, WhereOp<double>);
FB_REGISTER_CPU_T("Where", int32_t, WhereOp<int32_t>);
FB_REGISTER_CPU_T("Where", int64_t, WhereOp<int64_t>);

}  // namespace
}  // namespace fb
