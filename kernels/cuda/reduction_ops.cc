// GPU kernels of Sum, Mean, Max, Min (engine/ops/math_reduction_ops.cc), BiasAddGrad and
// SoftmaxCrossEntropyWithLogits. The axes are HostMemory (read on the host), the input's dims are
// collapsed as on the CPU (reduction::Collapse), and each reduced group is one
// [outer, r, inner] pass of reduce_kernels.cu, innermost first.
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

// Writes into `out` the reduction of `x` over the masked axes; Mean divides by the count.
template <typename T>
Status GpuReduce(OpKernelContext* ctx, ReduceFn fn, bool mean, const Tensor& x,
                 const std::vector<bool>& mask, Tensor* out) {
  cudaStream_t stream = GpuOf(ctx)->compute_stream();
  reduction::Collapsed c = reduction::Collapse(x.shape(), mask);
  if (reduction::ReducedGroups(c) == 0 || x.NumElements() == 0) {
    if (x.NumElements() == out->NumElements()) {
      FB_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(out->raw_data(), x.raw_data(), x.ByteSize(),
                                              cudaMemcpyDeviceToDevice, stream));
      return Status::OK();
    }
    // An empty input reduced to a non-empty output: reduce over r = 0 gives the identity.
    LaunchReduce3D<T>(fn, x.data<T>(), out->data<T>(), out->NumElements(), 0, 1, T(1), stream);
    return Status::OK();
  }
  const T scale = mean ? T(1) / static_cast<T>(x.NumElements() / out->NumElements()) : T(1);
  return reduction::ReducePasses(
      ctx, x, std::move(c), out,
      [&](const Tensor& in, Tensor* next, int64_t outer, int64_t r, int64_t inner, bool last) {
        LaunchReduce3D<T>(fn, in.data<T>(), next->data<T>(), outer, r, inner,
                          last ? scale : T(1), stream);
      });
}

template <typename T, ReduceFn kFn, bool kMean = false>
class GpuReductionOp : public OpKernel {
 public:
  explicit GpuReductionOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("keep_dims", &keep_dims_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    auto axes = HostInput(ctx, 1);
    OP_REQUIRES_OK(ctx, axes.status());
    auto mask = ReductionMask(*axes, x.dims());
    OP_REQUIRES_OK(ctx, mask.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ReducedShape(x.shape(), *mask, keep_dims_), &out));
    OP_REQUIRES_OK(ctx, GpuReduce<T>(ctx, kFn, kMean, x, *mask, out));
  }

 private:
  bool keep_dims_ = false;
};

// BiasAddGrad: out_backprop [..., C] summed over every dimension but the last.
template <typename T>
class GpuBiasAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    OP_REQUIRES(ctx, g.dims() >= 1,
                InvalidArgument("out_backprop must be at least 1-D, got ", g.shape().DebugString()));
    const int64_t c = g.dim_size(g.dims() - 1);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{c}, &out));
    const int64_t rows = c == 0 ? 0 : g.NumElements() / c;
    LaunchReduce3D<T>(ReduceFn::kSum, g.data<T>(), out->data<T>(), 1, rows, c, T(1),
                      GpuOf(ctx)->compute_stream());
  }
};

// SoftmaxCrossEntropyWithLogits: features and labels [batch, classes] -> loss [batch],
// backprop [batch, classes].
template <typename T>
class GpuSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES(ctx, logits.dims() == 2 && logits.shape() == labels.shape(),
                InvalidArgument("logits and labels must be 2-D of the same shape, got ",
                                logits.shape().DebugString(), " and ",
                                labels.shape().DebugString()));
    Tensor *loss, *backprop;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{logits.dim_size(0)}, &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, logits.shape(), &backprop));
    LaunchSoftmaxXent<T>(logits.data<T>(), labels.data<T>(), loss->data<T>(),
                         backprop->data<T>(), logits.dim_size(0), logits.dim_size(1),
                         GpuOf(ctx)->compute_stream());
  }
};

#define FB_REGISTER_REDUCTION(name, fn, mean)                                          \
  REGISTER_KERNEL(KernelDefBuilder(name).Device(DEVICE_GPU).TypeConstraint<float>("T")  \
                      .HostMemory("reduction_indices"),                                 \
                  GpuReductionOp<float, ReduceFn::fn, mean>);                           \
  REGISTER_KERNEL(KernelDefBuilder(name).Device(DEVICE_GPU).TypeConstraint<double>("T") \
                      .HostMemory("reduction_indices"),                                 \
                  GpuReductionOp<double, ReduceFn::fn, mean>)
FB_REGISTER_REDUCTION("Sum", kSum, false);
FB_REGISTER_REDUCTION("Mean", kSum, true);
FB_REGISTER_REDUCTION("Max", kMax, false);
FB_REGISTER_REDUCTION("Min", kMin, false);
#undef FB_REGISTER_REDUCTION

FB_REGISTER_GPU_FD("BiasAddGrad", GpuBiasAddGradOp);
FB_REGISTER_GPU_FD("SoftmaxCrossEntropyWithLogits", GpuSoftmaxXentOp);

}  // namespace
}  // namespace fb::gpu
