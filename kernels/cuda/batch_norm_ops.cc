// GPU FusedBatchNorm and FusedBatchNormGrad (engine/ops/nn_ops_batch_norm.cc), NHWC, float and
// double, training and inference mode. Hand-written CUDA kernels (batch_norm_kernels.cu), not
// cuDNN: cudnnBatchNormalizationForwardTraining saves 1/sqrt(variance + epsilon) where flowbench
// (like TensorFlow's CPU kernel) keeps the biased variance in reserve_space_2, its Backward reads
// only that saved inverse, and cuDNN rejects epsilon below CUDNN_BN_MIN_EPSILON (1e-5) where the op
// allows any epsilon >= 0. The kernels compute what kernels/cpu/batch_norm_kernels.cc computes:
// batch_mean = reserve_space_1 = the batch mean, reserve_space_2 = the biased variance,
// batch_variance = the Bessel-corrected variance (times M / (M - 1), M = N*H*W > 1). Input checks
// and their messages are the CPU kernel's.
#include "kernels/cpu/batch_norm_io.h"
#include "kernels/cuda/batch_norm_kernels.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

// Device scratch for the launchers; freed when the kernel returns, which is safe because every
// later user of the memory is ordered after these kernels on the compute stream.
StatusOr<Tensor> Scratch(OpKernelContext* ctx, int64_t rows, int64_t channels) {
  return AllocateTensor(DataType::kDouble, TensorShape({BatchNormScratchDoubles(rows, channels)}),
                        GpuOf(ctx)->GetAllocator());
}

template <typename T>
class GpuFusedBatchNormOp : public batch_norm::OpBase<false> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const batch_norm::Dims& dims, Tensor* out[5]) override {
    const Tensor& x = ctx->input(0);
    const int64_t rows = dims.rows, channels = dims.channels;
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
};

template <typename T>
class GpuFusedBatchNormGradOp : public batch_norm::OpBase<true> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const batch_norm::Dims& dims, Tensor* out[5]) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const int64_t rows = dims.rows, channels = dims.channels;
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
};

FB_REGISTER_GPU_FD("FusedBatchNorm", GpuFusedBatchNormOp);
FB_REGISTER_GPU_FD("FusedBatchNormGrad", GpuFusedBatchNormGradOp);

}  // namespace
}  // namespace fb::gpu
