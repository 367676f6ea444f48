// CPU kernels of ZerosLike, OnesLike and Fill (engine/ops/math_autodiff_ops.cc): constant
// tensors, split over the intra-op pool when large.
#include "engine/framework/op_kernel.h"
#include "engine/framework/thread_pool.h"
#include "kernels/cpu/fill_io.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

template <typename T>
void FillWith(OpKernelContext* ctx, Tensor* out, T value) {
  T* p = out->data<T>();
  ctx->intra_op_pool()->ParallelFor(out->NumElements(), 1, [&](int64_t begin, int64_t end) {
    std::fill(p + begin, p + end, value);
  });
}

// y = x's shape filled with kValue.
template <typename T, int kValue>
class ConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &y));
    FillWith(ctx, y, static_cast<T>(kValue));
  }
};

template <typename T>
class FillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    auto shape = FillShape(ctx->input(0), value);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    FillWith(ctx, out, value.scalar<T>());
  }
};

#define FB_REGISTER_FILL(T)                                        \
  FB_REGISTER_CPU_T("ZerosLike", T, ConstantLikeOp<T, 0>);        \
  FB_REGISTER_CPU_T("OnesLike", T, ConstantLikeOp<T, 1>);         \
  FB_REGISTER_CPU_T("Fill", T, FillOp<T>)

FB_REGISTER_FILL(float);
FB_REGISTER_FILL(double);
FB_REGISTER_FILL(int32_t);
FB_REGISTER_FILL(int64_t);
FB_REGISTER_FILL(bool);

#undef FB_REGISTER_FILL

}  // namespace
}  // namespace fb
