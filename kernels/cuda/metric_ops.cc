// GPU kernels of the accuracy metric's ops: ArgMax (engine/ops/math_reduction_ops.cc; T float,
// double, int32, int64; output_type int32 or int64) and integer Equal (int32, int64: argmax ==
// labels; the float comparisons are in cwise_ops.cc). ArgMax reads its scalar `dimension` on the
// host (HostMemory("dimension")) and checks it with the CPU kernel's code
// (reduction::PrepareArgMax, kernels/cpu/reduction.h); Equal accepts inputs in host memory (an
// int32 Const) by copying them to the GPU first. Integer Greater and Less are left to the CPU:
// they are the while loops' conditions, which LoopCond needs on the host (TensorFlow keeps int32
// loop counters in host memory too).
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/state_launch.h"
#include "kernels/cuda/state_util.h"

namespace fb::gpu {
namespace {

template <typename T, typename Tout>
class GpuArgMaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    auto dim = HostInput(ctx, 1);
    OP_REQUIRES_OK(ctx, dim.status());
    auto p = reduction::PrepareArgMax(ctx, x, *dim);
    OP_REQUIRES_OK(ctx, p.status());
    LaunchArgMax<T, Tout>(x.data<T>(), p->out->data<Tout>(), p->outer, p->r, p->inner,
                          GpuOf(ctx)->compute_stream());
  }
};

template <typename T, CompareFn kFn>
class GpuIntCompareOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto x = InputOnGpu(ctx, 0);
    OP_REQUIRES_OK(ctx, x.status());
    auto y = InputOnGpu(ctx, 1);
    OP_REQUIRES_OK(ctx, y.status());
    TensorShape shape;
    BroadcastShape b;
    OP_REQUIRES_OK(ctx, ToBroadcastShape(x->shape(), y->shape(), &shape, &b));
    Tensor* z;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &z));
    LaunchCompare<T>(kFn, x->data<T>(), y->data<T>(), z->data<bool>(), z->NumElements(), b,
                     GpuOf(ctx)->compute_stream());
  }
};

#define FB_REGISTER_ARGMAX(T)                                                            \
  REGISTER_KERNEL(KernelDefBuilder("ArgMax")                                             \
                      .Device(DEVICE_GPU)                                                \
                      .TypeConstraint<T>("T")                                            \
                      .TypeConstraint<int32_t>("output_type")                            \
                      .HostMemory("dimension"),                                          \
                  GpuArgMaxOp<T, int32_t>);                                              \
  REGISTER_KERNEL(KernelDefBuilder("ArgMax")                                             \
                      .Device(DEVICE_GPU)                                                \
                      .TypeConstraint<T>("T")                                            \
                      .TypeConstraint<int64_t>("output_type")                            \
                      .HostMemory("dimension"),                                          \
                  GpuArgMaxOp<T, int64_t>)
FB_REGISTER_ARGMAX(float);
FB_REGISTER_ARGMAX(double);
FB_REGISTER_ARGMAX(int32_t);
FB_REGISTER_ARGMAX(int64_t);
#undef FB_REGISTER_ARGMAX

#define FB_REGISTER_INT_COMPARE(name, fn)                                     \
  FB_REGISTER_GPU_T(name, int32_t, GpuIntCompareOp<int32_t, CompareFn::fn>); \
  FB_REGISTER_GPU_T(name, int64_t, GpuIntCompareOp<int64_t, CompareFn::fn>)
FB_REGISTER_INT_COMPARE("Equal", kEqual);
#undef FB_REGISTER_INT_COMPARE

}  // namespace
}  // namespace fb::gpu
