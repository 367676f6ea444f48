// GPU kernels of MatMul and BatchMatMul (engine/ops/math_matrix_ops.cc; float, double): shapes
// checked as on the CPU (PlanMatMul), then one strided-batched cuBLAS call (cublas_gemm.h).
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

template <typename T, bool kBatched>
class GpuMatMulOp : public OpKernel {
 public:
  explicit GpuMatMulOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr(kBatched ? "adj_x" : "transpose_a", &transpose_a_));
    c->SetStatus(c->GetAttr(kBatched ? "adj_y" : "transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    auto p = PlanMatMul(a.shape(), transpose_a_, b.shape(), transpose_b_, kBatched);
    OP_REQUIRES_OK(ctx, p.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, p->out_shape, &out));
    OP_REQUIRES_OK(ctx, Gemm<T>(GpuOf(ctx), p->dims, transpose_a_, transpose_b_, a.data<T>(),
                                b.data<T>(), out->data<T>(), p->batch));
  }

 private:
  bool transpose_a_ = false, transpose_b_ = false;
};

FB_REGISTER_GPU_T("MatMul", float, GpuMatMulOp<float, false>);
FB_REGISTER_GPU_T("MatMul", double, GpuMatMulOp<double, false>);
FB_REGISTER_GPU_T("BatchMatMul", float, GpuMatMulOp<float, true>);
FB_REGISTER_GPU_T("BatchMatMul", double, GpuMatMulOp<double, true>);

}  // namespace
}  // namespace fb::gpu
