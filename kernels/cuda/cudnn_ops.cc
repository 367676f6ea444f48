// GPU kernels through cuDNN (whitepaper 5.4) besides convolutions: MaxPool, AvgPool and their
// gradients (NHWC; AvgPool excludes padding, as TensorFlow's SAME average pooling does), Relu,
// Sigmoid and Tanh (cudnnActivationForward over the flat tensor), Softmax and LogSoftmax over the
// last dimension (cudnnSoftmaxForward, accurate mode). Their gradients that are element-wise
// (ReluGrad, ...) are in cwise_ops.cc.
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/cudnn_util.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

// Pooling forward (kGrad = false: input x -> y) and backward (kGrad = true).
template <typename T, cudnnPoolingMode_t kMode, bool kGrad>
class GpuPoolOp : public OpKernel {
 public:
  explicit GpuPoolOp(OpKernelConstruction* c) : OpKernel(c) {
    auto attrs = ParseWindow2DAttrs(c->def().attrs, /*pooling=*/true);
    if (attrs.ok()) attrs_ = *attrs;
    else c->SetStatus(attrs.status());
  }

  void Compute(OpKernelContext* ctx) override {
    auto in_dims = InputDims(ctx);
    OP_REQUIRES_OK(ctx, in_dims.status());
    auto shape = ComputePool2DShape(*in_dims, attrs_);
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    OP_REQUIRES_OK(ctx, CheckSymmetricPadding(s));
    const Tensor& grad = ctx->input(kGrad ? ctx->num_inputs() - 1 : 0);
    if (kGrad)
      OP_REQUIRES(ctx, grad.shape().dim_sizes() == s.OutputDims(),
                  InvalidArgument("grad has shape ", grad.shape().DebugString(), ", expected ",
                                  DimsString(s.OutputDims())));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape(kGrad ? s.InputDims() : s.OutputDims()), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Run(ctx, s, out));
  }

 private:
  // MaxPoolGrad has orig_input; AvgPoolGrad has orig_input_shape (int32, read on the host).
  StatusOr<std::vector<int64_t>> InputDims(OpKernelContext* ctx) const {
    if (!kGrad || kMode == CUDNN_POOLING_MAX) return ctx->input(0).shape().dim_sizes();
    ASSIGN_OR_RETURN(Tensor sizes, HostInput(ctx, 0));
    if (sizes.NumElements() != 4)
      return InvalidArgument("orig_input_shape must have 4 entries, got shape ",
                             sizes.shape().DebugString());
    const int32_t* v = sizes.data<int32_t>();
    return std::vector<int64_t>(v, v + 4);
  }

  Status Run(OpKernelContext* ctx, const Conv2DShape& s, Tensor* out) const {
    GpuDevice* gpu = GpuOf(ctx);
    ASSIGN_OR_RETURN(TensorDesc x, NhwcDesc(kCudnnType<T>, s.InputDims()));
    ASSIGN_OR_RETURN(TensorDesc y, NhwcDesc(kCudnnType<T>, s.OutputDims()));
    cudnnPoolingDescriptor_t p;
    FB_CUDNN_RETURN_IF_ERROR(cudnnCreatePoolingDescriptor(&p));
    PoolDesc pool(p);
    FB_CUDNN_RETURN_IF_ERROR(cudnnSetPooling2dDescriptor(
        p, kMode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(s.rows.window),
        static_cast<int>(s.cols.window), static_cast<int>(s.rows.pad_before),
        static_cast<int>(s.cols.pad_before), static_cast<int>(s.rows.stride),
        static_cast<int>(s.cols.stride)));
    const T one = 1, zero = 0;
    std::lock_guard<std::mutex> l(*gpu->library_mu());
    if (!kGrad) {
      FB_CUDNN_RETURN_IF_ERROR(cudnnPoolingForward(gpu->cudnn(), p, &one, x.get(),
                                                   ctx->input(0).data<T>(), &zero, y.get(),
                                                   out->data<T>()));
      return Status::OK();
    }
    // MaxPoolGrad: x = orig_input, y = orig_output. Average pooling reads neither: AvgPoolGrad
    // passes its gradient (input 1) as y and the output buffer as x.
    const bool max = kMode == CUDNN_POOLING_MAX;
    const T* y_data = ctx->input(1).data<T>();
    const T* x_data = max ? ctx->input(0).data<T>() : out->data<T>();
    FB_CUDNN_RETURN_IF_ERROR(cudnnPoolingBackward(
        gpu->cudnn(), p, &one, y.get(), y_data, y.get(), ctx->input(ctx->num_inputs() - 1).data<T>(),
        x.get(), x_data, &zero, x.get(), out->data<T>()));
    return Status::OK();
  }

  Window2DAttrs attrs_;
};

template <typename T, cudnnActivationMode_t kMode>
class GpuActivationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, Run(GpuOf(ctx), x, y));
  }

 private:
  static Status Run(GpuDevice* gpu, const Tensor& x, Tensor* y) {
    ASSIGN_OR_RETURN(TensorDesc d, RowsDesc(kCudnnType<T>, 1, x.NumElements()));
    cudnnActivationDescriptor_t a;
    FB_CUDNN_RETURN_IF_ERROR(cudnnCreateActivationDescriptor(&a));
    std::unique_ptr<cudnnActivationStruct, decltype(&cudnnDestroyActivationDescriptor)> owned(
        a, cudnnDestroyActivationDescriptor);
    FB_CUDNN_RETURN_IF_ERROR(cudnnSetActivationDescriptor(a, kMode, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    const T one = 1, zero = 0;
    std::lock_guard<std::mutex> l(*gpu->library_mu());
    FB_CUDNN_RETURN_IF_ERROR(cudnnActivationForward(gpu->cudnn(), a, &one, d.get(), x.data<T>(),
                                                    &zero, d.get(), y->data<T>()));
    return Status::OK();
  }
};

template <typename T, cudnnSoftmaxAlgorithm_t kAlgo>
class GpuSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() >= 1,
                InvalidArgument("logits must have rank >= 1, got shape ", x.shape().DebugString()));
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    if (x.NumElements() == 0) return;
    const int64_t classes = x.dim_size(x.dims() - 1);
    GpuDevice* gpu = GpuOf(ctx);
    auto d = RowsDesc(kCudnnType<T>, x.NumElements() / classes, classes);
    OP_REQUIRES_OK(ctx, d.status());
    const T one = 1, zero = 0;
    std::lock_guard<std::mutex> l(*gpu->library_mu());
    OP_REQUIRES_OK(ctx, CudnnStatus(cudnnSoftmaxForward(gpu->cudnn(), kAlgo,
                                                        CUDNN_SOFTMAX_MODE_CHANNEL, &one,
                                                        d->get(), x.data<T>(), &zero, d->get(),
                                                        y->data<T>()),
                                    "cudnnSoftmaxForward"));
  }
};

template <typename T>
using GpuMaxPoolOp = GpuPoolOp<T, CUDNN_POOLING_MAX, false>;
template <typename T>
using GpuMaxPoolGradOp = GpuPoolOp<T, CUDNN_POOLING_MAX, true>;
template <typename T>
using GpuAvgPoolOp = GpuPoolOp<T, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, false>;
template <typename T>
using GpuAvgPoolGradOp = GpuPoolOp<T, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, true>;
template <typename T>
using GpuReluOp = GpuActivationOp<T, CUDNN_ACTIVATION_RELU>;
template <typename T>
using GpuSigmoidOp = GpuActivationOp<T, CUDNN_ACTIVATION_SIGMOID>;
template <typename T>
using GpuTanhOp = GpuActivationOp<T, CUDNN_ACTIVATION_TANH>;
template <typename T>
using GpuSoftmaxAccurateOp = GpuSoftmaxOp<T, CUDNN_SOFTMAX_ACCURATE>;
template <typename T>
using GpuLogSoftmaxOp = GpuSoftmaxOp<T, CUDNN_SOFTMAX_LOG>;

FB_REGISTER_GPU_FD("MaxPool", GpuMaxPoolOp);
FB_REGISTER_GPU_FD("MaxPoolGrad", GpuMaxPoolGradOp);
FB_REGISTER_GPU_FD("AvgPool", GpuAvgPoolOp);
FB_REGISTER_GPU_FD_HOST("AvgPoolGrad", GpuAvgPoolGradOp, "orig_input_shape");
FB_REGISTER_GPU_FD("Relu", GpuReluOp);
FB_REGISTER_GPU_FD("Sigmoid", GpuSigmoidOp);
FB_REGISTER_GPU_FD("Tanh", GpuTanhOp);
FB_REGISTER_GPU_FD("Softmax", GpuSoftmaxAccurateOp);
FB_REGISTER_GPU_FD("LogSoftmax", GpuLogSoftmaxOp);

}  // namespace
}  // namespace fb::gpu
