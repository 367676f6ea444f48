// GPU FusedBatchNorm and FusedBatchNormGrad (engine/ops/nn_ops_batch_norm.cc), NHWC, float and
// double, training and inference mode. Hand-written CUDA kernels (batch_norm_kernels.cu), not
// cuDNN: cudnnBatchNormalizationForwardTraining saves 1/sqrt(variance + epsilon) where flowbench
// (like TensorFlow's CPU kernel) keeps the biased variance in reserve_space_2, its Backward reads
// only that saved inverse, and cuDNN rejects epsilon below CUDNN_BN_MIN_EPSILON (1e-5) where the op
// allows any epsilon >= 0. The kernels compute what kernels/cpu/batch_norm_kernels.cc computes:
// batch_mean = reserve_space_1 = the batch mean, reserve_space_2 = the biased variance,
// batch_variance = the Bessel-corrected variance (times M / (M - 1), M = N*H*W > 1). Input checks
// and their messages are the CPU kernel's.
#include "kernels/cuda/batch_norm_kernels.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

struct BatchNormAttrs {
  float epsilon = 1e-4f;
  bool is_training = true;
};

BatchNormAttrs ParseAttrs(OpKernelConstruction* ctx) {
  BatchNormAttrs a;
  std::string format;
  ctx->SetStatus(ctx->GetAttr("epsilon", &a.epsilon));
  ctx->SetStatus(ctx->GetAttr("is_training", &a.is_training));
  ctx->SetStatus(ctx->GetAttr("data_format", &format));
  if (ctx->status().ok() && format != "NHWC")
    ctx->SetStatus(
        InvalidArgument("data_format \"", format, "\" is not supported (only \"NHWC\")"));
  if (ctx->status().ok() && !(a.epsilon >= 0))
    ctx->SetStatus(InvalidArgument("epsilon must be >= 0, got ", a.epsilon));
  return a;
}

Status CheckChannelVector(const Tensor& t, const char* what, int64_t channels, bool may_be_empty) {
  if (t.dims() == 1 && (t.dim_size(0) == channels || (may_be_empty && t.dim_size(0) == 0)))
    return Status::OK();
  return InvalidArgument(what, " must be 1-D with ", channels, " elements (the channels of x)",
                         may_be_empty ? " or empty" : "", ", got shape ", t.shape().DebugString());
}

Status CheckNhwc(const Tensor& t, const char* what) {
  if (t.dims() == 4) return Status::OK();
  return InvalidArgument(what, " must be 4-D NHWC, got shape ", t.shape().DebugString());
}

// Device scratch for the launchers; freed when the kernel returns, which is safe because every
// later user of the memory is ordered after these kernels on the compute stream.
StatusOr<Tensor> Scratch(OpKernelContext* ctx, int64_t rows, int64_t channels) {
  return AllocateTensor(DataType::kDouble, TensorShape({BatchNormScratchDoubles(rows, channels)}),
                        GpuOf(ctx)->GetAllocator());
}

template <typename T>
class GpuFusedBatchNormOp : public OpKernel {
 public:
  explicit GpuFusedBatchNormOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), attrs_(ParseAttrs(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckNhwc(x, "x"));
    const int64_t channels = x.dim_size(3);
    const int64_t rows = channels == 0 ? 0 : x.NumElements() / channels;
    static const char* kNames[] = {"x", "scale", "offset", "mean", "variance"};
    for (int i = 1; i < 5; ++i)
      OP_REQUIRES_OK(ctx, CheckChannelVector(ctx->input(i), kNames[i], channels,
                                             attrs_.is_training && i >= 3));
    Tensor* out[5];
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out[0]));
    for (int i = 1; i < 5; ++i)
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({channels}), &out[i]));
    if (channels == 0) return;
    auto scratch = Scratch(ctx, rows, channels);
    OP_REQUIRES_OK(ctx, scratch.status());
    BatchNormForwardArgs<T> a;
    a.x = x.data<T>();
    a.scale = ctx->input(1).data<T>();
    a.offset = ctx->input(2).data<T>();
    if (!attrs_.is_training) {
      a.mean = ctx->input(3).data<T>();
      a.variance = ctx->input(4).data<T>();
    }
    a.y = out[0]->data<T>();
    a.batch_mean = out[1]->data<T>();
    a.batch_variance = out[2]->data<T>();
    a.saved_mean = out[3]->data<T>();
    a.saved_variance = out[4]->data<T>();
    a.rows = rows;
    a.channels = channels;
    a.epsilon = attrs_.epsilon;
    a.training = attrs_.is_training;
    a.scratch = scratch->data<double>();
    LaunchBatchNormForward(a, GpuOf(ctx)->compute_stream());
  }

 private:
  BatchNormAttrs attrs_;
};

template <typename T>
class GpuFusedBatchNormGradOp : public OpKernel {
 public:
  explicit GpuFusedBatchNormGradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), attrs_(ParseAttrs(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckNhwc(dy, "y_backprop"));
    OP_REQUIRES_OK(ctx, CheckNhwc(x, "x"));
    OP_REQUIRES(ctx, dy.shape() == x.shape(),
                InvalidArgument("y_backprop and x must have the same shape, got ",
                                dy.shape().DebugString(), " and ", x.shape().DebugString()));
    const int64_t channels = x.dim_size(3);
    const int64_t rows = channels == 0 ? 0 : x.NumElements() / channels;
    static const char* kNames[] = {"y_backprop", "x", "scale", "reserve_space_1",
                                   "reserve_space_2"};
    for (int i = 2; i < 5; ++i)
      OP_REQUIRES_OK(ctx, CheckChannelVector(ctx->input(i), kNames[i], channels, false));
    Tensor* out[5];
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out[0]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({channels}), &out[1]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({channels}), &out[2]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({0}), &out[3]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(4, TensorShape({0}), &out[4]));
    if (channels == 0) return;
    auto scratch = Scratch(ctx, rows, channels);
    OP_REQUIRES_OK(ctx, scratch.status());
    BatchNormBackwardArgs<T> a;
    a.dy = dy.data<T>();
    a.x = x.data<T>();
    a.scale = ctx->input(2).data<T>();
    a.mean = ctx->input(3).data<T>();
    a.variance = ctx->input(4).data<T>();
    a.dx = out[0]->data<T>();
    a.scale_backprop = out[1]->data<T>();
    a.offset_backprop = out[2]->data<T>();
    a.rows = rows;
    a.channels = channels;
    a.epsilon = attrs_.epsilon;
    a.training = attrs_.is_training;
    a.scratch = scratch->data<double>();
    LaunchBatchNormBackward(a, GpuOf(ctx)->compute_stream());
  }

 private:
  BatchNormAttrs attrs_;
};

FB_REGISTER_GPU_FD("FusedBatchNorm", GpuFusedBatchNormOp);
FB_REGISTER_GPU_FD("FusedBatchNormGrad", GpuFusedBatchNormGradOp);

}  // namespace
}  // namespace fb::gpu
