// CPU kernels of the shape arithmetic in gradient graphs (engine/ops/math_autodiff_ops.cc):
// BroadcastGradientArgs (from BCast, kernels/cpu/bcast.h) and ReducedShape. Shapes are small
// int32/int64 vectors; these kernels are cheap and run inline.
#include "engine/framework/op_kernel.h"
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/bcast.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

// Reads a shape given as a vector tensor.
StatusOr<TensorShape> ShapeFromTensor(const Tensor& t, const char* what) {
  if (t.dims() != 1)
    return InvalidArgument(what, " must be a vector, got shape ", t.shape().DebugString());
  ASSIGN_OR_RETURN(std::vector<int64_t> dims, IndexValues(t, what));
  RETURN_IF_ERROR(ValidateShape(dims, what));
  return TensorShape(std::move(dims));
}

template <typename T>
Tensor VectorTensor(const std::vector<int64_t>& values) {
  return Tensor::FromVector(std::vector<T>(values.begin(), values.end()));
}

template <typename T>
class BroadcastGradientArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto s0 = ShapeFromTensor(ctx->input(0), "s0");
    OP_REQUIRES_OK(ctx, s0.status());
    auto s1 = ShapeFromTensor(ctx->input(1), "s1");
    OP_REQUIRES_OK(ctx, s1.status());
    auto b = BCast::Make(*s0, *s1);
    OP_REQUIRES_OK(ctx, b.status());
    ctx->set_output(0, VectorTensor<T>(b->x_reduce()));
    ctx->set_output(1, VectorTensor<T>(b->y_reduce()));
  }
  bool IsExpensive() const override { return false; }
};

class ReducedShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto shape = ShapeFromTensor(ctx->input(0), "input_shape");
    OP_REQUIRES_OK(ctx, shape.status());
    auto mask = ReductionMask(ctx->input(1), shape->rank());
    OP_REQUIRES_OK(ctx, mask.status());
    ctx->set_output(0, VectorTensor<int32_t>(ReducedShape(*shape, *mask, true).dim_sizes()));
  }
  bool IsExpensive() const override { return false; }
};

FB_REGISTER_CPU_T("BroadcastGradientArgs", int32_t, BroadcastGradientArgsOp<int32_t>);
FB_REGISTER_CPU_T("BroadcastGradientArgs", int64_t, BroadcastGradientArgsOp<int64_t>);
REGISTER_KERNEL(KernelDefBuilder("ReducedShape").Device(DEVICE_CPU), ReducedShapeOp);

}  // namespace
}  // namespace fb
