// GPU kernels of the element-wise ops: unary math (Neg ... Reciprocal), binary math with NumPy
// broadcasting (Add ... Pow), comparisons (Greater, Less, Equal -> bool), the activation
// gradients (ReluGrad, SigmoidGrad, TanhGrad), BiasAdd and Relu. Shapes are checked on the host;
// the arithmetic is one launch of cwise_kernels.cu (BiasAdd and Relu: bias_relu_kernels.cu) on
// the compute stream.
#include "kernels/bias_shapes.h"
#include "kernels/cuda/bias_relu_launch.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

template <typename T, UnaryFn kFn>
class GpuUnaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    LaunchUnary<T>(kFn, x.data<T>(), y->data<T>(), x.NumElements(), GpuOf(ctx)->compute_stream());
  }
};

// Binary ops; kSameShape requires equal shapes (the activation gradients) instead of broadcasting.
template <typename T, BinaryFn kFn, bool kSameShape = false>
class GpuBinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (kSameShape)
      OP_REQUIRES(ctx, x.shape() == y.shape(),
                  InvalidArgument("inputs must have the same shape, got ", x.shape().DebugString(),
                                  " and ", y.shape().DebugString()));
    TensorShape shape;
    BroadcastShape b;
    OP_REQUIRES_OK(ctx, ToBroadcastShape(x.shape(), y.shape(), &shape, &b));
    Tensor* z;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &z));
    LaunchBinary<T>(kFn, x.data<T>(), y.data<T>(), z->data<T>(), z->NumElements(), b,
                    GpuOf(ctx)->compute_stream());
  }
};

template <typename T, CompareFn kFn>
class GpuCompareOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    TensorShape shape;
    BroadcastShape b;
    OP_REQUIRES_OK(ctx, ToBroadcastShape(x.shape(), y.shape(), &shape, &b));
    Tensor* z;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &z));
    LaunchCompare<T>(kFn, x.data<T>(), y.data<T>(), z->data<bool>(), z->NumElements(), b,
                     GpuOf(ctx)->compute_stream());
  }
};

// BiasAdd: value [..., C] + bias [C] (NHWC).
template <typename T>
class GpuBiasAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckBiasAddShapes(value.shape(), bias.shape()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    LaunchBiasActivation<T>(value.data<T>(), bias.data<T>(), out->NumElements(),
                            bias.NumElements(), /*relu=*/false, out->data<T>(),
                            GpuOf(ctx)->compute_stream());
  }
};

// Relu: max(x, 0), NaN kept (as the CPU kernel), one element-wise launch.
template <typename T>
class GpuReluOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    LaunchRelu<T>(x.data<T>(), x.NumElements(), y->data<T>(), GpuOf(ctx)->compute_stream());
  }
};

#define FB_REGISTER_UNARY(name, fn)                                  \
  FB_REGISTER_GPU_T(name, float, GpuUnaryOp<float, UnaryFn::fn>);   \
  FB_REGISTER_GPU_T(name, double, GpuUnaryOp<double, UnaryFn::fn>)
FB_REGISTER_UNARY("Neg", kNeg);
FB_REGISTER_UNARY("Square", kSquare);
FB_REGISTER_UNARY("Exp", kExp);
FB_REGISTER_UNARY("Log", kLog);
FB_REGISTER_UNARY("Sqrt", kSqrt);
FB_REGISTER_UNARY("Rsqrt", kRsqrt);
FB_REGISTER_UNARY("Reciprocal", kReciprocal);
#undef FB_REGISTER_UNARY

#define FB_REGISTER_BINARY(name, fn, same)                                  \
  FB_REGISTER_GPU_T(name, float, GpuBinaryOp<float, BinaryFn::fn, same>);  \
  FB_REGISTER_GPU_T(name, double, GpuBinaryOp<double, BinaryFn::fn, same>)
FB_REGISTER_BINARY("Add", kAdd, false);
FB_REGISTER_BINARY("Sub", kSub, false);
FB_REGISTER_BINARY("Mul", kMul, false);
FB_REGISTER_BINARY("Div", kDiv, false);
FB_REGISTER_BINARY("Maximum", kMaximum, false);
FB_REGISTER_BINARY("Minimum", kMinimum, false);
FB_REGISTER_BINARY("Pow", kPow, false);
FB_REGISTER_BINARY("ReluGrad", kReluGrad, true);
FB_REGISTER_BINARY("SigmoidGrad", kSigmoidGrad, true);
FB_REGISTER_BINARY("TanhGrad", kTanhGrad, true);
#undef FB_REGISTER_BINARY

#define FB_REGISTER_COMPARE(name, fn)                                  \
  FB_REGISTER_GPU_T(name, float, GpuCompareOp<float, CompareFn::fn>);  \
  FB_REGISTER_GPU_T(name, double, GpuCompareOp<double, CompareFn::fn>)
FB_REGISTER_COMPARE("Greater", kGreater);
FB_REGISTER_COMPARE("Less", kLess);
FB_REGISTER_COMPARE("Equal", kEqual);
#undef FB_REGISTER_COMPARE

FB_REGISTER_GPU_FD("BiasAdd", GpuBiasAddOp);
FB_REGISTER_GPU_FD("Relu", GpuReluOp);

}  // namespace
}  // namespace fb::gpu
