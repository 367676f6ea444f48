// GPU kernels of MatMul and BatchMatMul (engine/ops/math_matrix_ops.cc; float, double): shapes
// checked as on the CPU (MatMulDims), then one strided-batched cuBLAS call (cublas_gemm.h).
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
    OP_REQUIRES_OK(ctx, CheckRanks(a.shape(), b.shape()));
    auto d = MatMulDims(a.shape(), transpose_a_, b.shape(), transpose_b_);
    OP_REQUIRES_OK(ctx, d.status());
    TensorShape out_shape = a.shape();
    out_shape.set_dim(a.dims() - 2, d->m);
    out_shape.set_dim(a.dims() - 1, d->n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t batch = d->m * d->n == 0 ? 0 : out->NumElements() / (d->m * d->n);
    OP_REQUIRES_OK(ctx, Gemm<T>(GpuOf(ctx), *d, transpose_a_, transpose_b_, a.data<T>(),
                                b.data<T>(), out->data<T>(), batch));
  }

 private:
  static Status CheckRanks(const TensorShape& a, const TensorShape& b) {
    if (!kBatched) {
      if (a.rank() != 2) return InvalidArgument("In[0] must be a matrix, got shape ", a.DebugString());
      if (b.rank() != 2) return InvalidArgument("In[1] must be a matrix, got shape ", b.DebugString());
      return Status::OK();
    }
    bool same_batch = a.rank() >= 2 && a.rank() == b.rank();
    for (int i = 0; same_batch && i < a.rank() - 2; ++i) same_batch = a.dim_size(i) == b.dim_size(i);
    if (!same_batch)
      return InvalidArgument("inputs must have rank >= 2 and equal batch dimensions, got ",
                             a.DebugString(), " and ", b.DebugString());
    return Status::OK();
  }

  bool transpose_a_ = false, transpose_b_ = false;
};

FB_REGISTER_GPU_T("MatMul", float, GpuMatMulOp<float, false>);
FB_REGISTER_GPU_T("MatMul", double, GpuMatMulOp<double, false>);
FB_REGISTER_GPU_T("BatchMatMul", float, GpuMatMulOp<float, true>);
FB_REGISTER_GPU_T("BatchMatMul", double, GpuMatMulOp<double, true>);

}  // namespace
}  // namespace fb::gpu
