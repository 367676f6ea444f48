// GPU kernels of MatMul and BatchMatMul (engine/ops/math_matrix_ops.cc; float, double): attrs,
// shape checks and output by the CPU's code (kernels/cpu/matmul_op.h), then one strided-batched
// cuBLAS call (cublas_gemm.h).
#include "kernels/cpu/matmul_op.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

template <typename T, bool kBatched>
class GpuMatMulOp : public MatMulOpBase<kBatched> {
 public:
  using MatMulOpBase<kBatched>::MatMulOpBase;

 protected:
  Status Multiply(OpKernelContext* ctx, const MatMulPlan& p, const Tensor& a, const Tensor& b,
                  Tensor* out) override {
    return Gemm<T>(GpuOf(ctx), p.dims, this->transpose_a_, this->transpose_b_, a.data<T>(),
                   b.data<T>(), out->data<T>(), p.batch);
  }
};

FB_REGISTER_GPU_T("MatMul", float, GpuMatMulOp<float, false>);
FB_REGISTER_GPU_T("MatMul", double, GpuMatMulOp<double, false>);
FB_REGISTER_GPU_T("BatchMatMul", float, GpuMatMulOp<float, true>);
FB_REGISTER_GPU_T("BatchMatMul", double, GpuMatMulOp<double, true>);

}  // namespace
}  // namespace fb::gpu
