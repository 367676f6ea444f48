// GPU kernels through cuDNN (whitepaper 5.4) besides convolutions: AvgPool and AvgPoolGrad (NHWC;
// padding excluded from the divisor, as TensorFlow's SAME average pooling does), Sigmoid and
// Tanh (cudnnActivationForward over the flat tensor), Softmax and LogSoftmax over the last
// dimension (cudnnSoftmaxForward, accurate mode). Their gradients that are element-wise
// (ReluGrad, ...) and Relu itself (an own kernel: cuDNN's took twice BiasAdd's time in GoogLeNet's
// trace) are in cwise_ops.cc; MaxPool and MaxPoolGrad are in max_pool_ops.cc. Average
// pooling with asymmetric SAME padding (the odd row/column at the bottom/right), which cuDNN
// cannot express, runs the kernels of window_launch.h instead.
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/cudnn_util.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/window_launch.h"

namespace fb::gpu {
namespace {

// Average pooling forward (kGrad = false: input x -> y) and backward (kGrad = true: inputs
// orig_input_shape, read on the host, and grad).
template <typename T, bool kGrad>
class GpuAvgPoolOp : public OpKernel {
 public:
  explicit GpuAvgPoolOp(OpKernelConstruction* c) : OpKernel(c) {
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
    const Tensor& grad = ctx->input(kGrad ? 1 : 0);
    if (kGrad)
      OP_REQUIRES(ctx, grad.shape().dim_sizes() == s.OutputDims(),
                  InvalidArgument("grad has shape ", grad.shape().DebugString(), ", expected ",
                                  DimsString(s.OutputDims())));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape(kGrad ? s.InputDims() : s.OutputDims()), &out));
    if (out->NumElements() == 0) return;
    auto padded_shape = SymmetricPaddedShape(s);
    OP_REQUIRES_OK(ctx, padded_shape.status());
    if (NeedsExplicitPadding(s, *padded_shape)) RunAveragePadded(ctx, s, out);
    else OP_REQUIRES_OK(ctx, Run(ctx, s, out));
  }

 private:
  StatusOr<std::vector<int64_t>> InputDims(OpKernelContext* ctx) const {
    if (!kGrad) return ctx->input(0).shape().dim_sizes();
    ASSIGN_OR_RETURN(Tensor sizes, HostInput(ctx, 0));
    if (sizes.NumElements() != 4)
      return InvalidArgument("orig_input_shape must have 4 entries, got shape ",
                             sizes.shape().DebugString());
    const int32_t* v = sizes.data<int32_t>();
    return std::vector<int64_t>(v, v + 4);
  }

  // Asymmetric padding: explicit zeros would count in cuDNN's divisor, so window_launch.h's
  // kernels run it, on the compute stream.
  static void RunAveragePadded(OpKernelContext* ctx, const Conv2DShape& s, Tensor* out) {
    PoolGeometry g;
    g.batch = s.batch, g.rows = s.rows.in, g.cols = s.cols.in, g.depth = s.in_depth;
    g.out_rows = s.rows.out, g.out_cols = s.cols.out;
    g.window_rows = s.rows.window, g.window_cols = s.cols.window;
    g.stride_rows = s.rows.stride, g.stride_cols = s.cols.stride;
    g.pad_rows = s.rows.pad_before, g.pad_cols = s.cols.pad_before;
    cudaStream_t stream = GpuOf(ctx)->compute_stream();
    if (!kGrad) LaunchAvgPool<T>(ctx->input(0).data<T>(), g, out->data<T>(), stream);
    else LaunchAvgPoolGrad<T>(ctx->input(1).data<T>(), g, out->data<T>(), stream);
  }

  // cuDNN with symmetric padding. The backward reads neither x nor y of the forward: the
  // gradient (input 1) is passed as y and the output buffer as x.
  static Status Run(OpKernelContext* ctx, const Conv2DShape& s, Tensor* out) {
    GpuDevice* gpu = GpuOf(ctx);
    ASSIGN_OR_RETURN(TensorDesc x, NhwcDesc(kCudnnType<T>, s.InputDims()));
    ASSIGN_OR_RETURN(TensorDesc y, NhwcDesc(kCudnnType<T>, s.OutputDims()));
    ASSIGN_OR_RETURN(PoolDesc pool, PoolingDesc(s));
    const T one = 1, zero = 0;
    std::lock_guard<std::mutex> l(*gpu->library_mu());
    if (!kGrad) {
      FB_CUDNN_RETURN_IF_ERROR(cudnnPoolingForward(gpu->cudnn(), pool.get(), &one, x.get(),
                                                   ctx->input(0).data<T>(), &zero, y.get(),
                                                   out->data<T>()));
      return Status::OK();
    }
    T* dx = out->data<T>();
    const T* dy = ctx->input(1).data<T>();
    FB_CUDNN_RETURN_IF_ERROR(cudnnPoolingBackward(gpu->cudnn(), pool.get(), &one, y.get(), dy,
                                                  y.get(), dy, x.get(), dx, &zero, x.get(),
                                                  dx));
    return Status::OK();
  }

  static StatusOr<PoolDesc> PoolingDesc(const Conv2DShape& s) {
    cudnnPoolingDescriptor_t p;
    FB_CUDNN_RETURN_IF_ERROR(cudnnCreatePoolingDescriptor(&p));
    PoolDesc pool(p);
    FB_CUDNN_RETURN_IF_ERROR(cudnnSetPooling2dDescriptor(
        p, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, CUDNN_NOT_PROPAGATE_NAN,
        static_cast<int>(s.rows.window), static_cast<int>(s.cols.window),
        static_cast<int>(s.rows.pad_before), static_cast<int>(s.cols.pad_before),
        static_cast<int>(s.rows.stride), static_cast<int>(s.cols.stride)));
    return pool;
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
using GpuAvgPoolForwardOp = GpuAvgPoolOp<T, false>;
template <typename T>
using GpuAvgPoolGradOp = GpuAvgPoolOp<T, true>;
template <typename T>
using GpuSigmoidOp = GpuActivationOp<T, CUDNN_ACTIVATION_SIGMOID>;
template <typename T>
using GpuTanhOp = GpuActivationOp<T, CUDNN_ACTIVATION_TANH>;
template <typename T>
using GpuSoftmaxAccurateOp = GpuSoftmaxOp<T, CUDNN_SOFTMAX_ACCURATE>;
template <typename T>
using GpuLogSoftmaxOp = GpuSoftmaxOp<T, CUDNN_SOFTMAX_LOG>;

FB_REGISTER_GPU_FD("AvgPool", GpuAvgPoolForwardOp);
FB_REGISTER_GPU_FD_HOST("AvgPoolGrad", GpuAvgPoolGradOp, "orig_input_shape");
FB_REGISTER_GPU_FD("Sigmoid", GpuSigmoidOp);
FB_REGISTER_GPU_FD("Tanh", GpuTanhOp);
FB_REGISTER_GPU_FD("Softmax", GpuSoftmaxAccurateOp);
FB_REGISTER_GPU_FD("LogSoftmax", GpuLogSoftmaxOp);

}  // namespace
}  // namespace fb::gpu
