// CPU kernel of AddN (engine/ops/math_ops.cc): the element-wise sum of N equal-shaped tensors,
// which autodiff uses to add the gradients reaching one tensor (whitepaper 4.1).
#include "engine/framework/op_kernel.h"
#include "engine/framework/thread_pool.h"
#include "kernels/cpu/cwise_binary.h"
#include "kernels/cpu/forward_input.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

using cwise::ConstVec;
using cwise::Vec;

template <typename T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i)
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  InvalidArgument("inputs must have equal shapes: input 0 is ",
                                  first.shape().DebugString(), ", input ", i, " is ",
                                  ctx->input(i).shape().DebugString()));
    if (n == 1) return ctx->forward_input(0, 0);
    // The sum may overwrite input 0 when nothing else holds it (each element is read first).
    auto forwarded = ForwardInputOrAllocateOutput(ctx, 0, 0, ctx->expected_output_dtype(0),
                                                  first.shape());
    OP_REQUIRES_OK(ctx, forwarded.status());
    Tensor* out = *forwarded;
    T* o = out->data<T>();
    ctx->intra_op_pool()->ParallelFor(out->NumElements(), n, [&](int64_t begin, int64_t end) {
      const int64_t len = end - begin;
      Vec<T> sum(o + begin, len);
      sum = ConstVec<T>(ctx->input(0).data<T>() + begin, len) +
            ConstVec<T>(ctx->input(1).data<T>() + begin, len);
      for (int i = 2; i < n; ++i) sum += ConstVec<T>(ctx->input(i).data<T>() + begin, len);
    });
  }
};

FB_REGISTER_CPU_T("AddN", float, AddNOp<float>);
FB_REGISTER_CPU_T("AddN", double, AddNOp<double>);
FB_REGISTER_CPU_T("AddN", int32_t, AddNOp<int32_t>);
FB_REGISTER_CPU_T("AddN", int64_t, AddNOp<int64_t>);

}  // namespace
}  // namespace fb
