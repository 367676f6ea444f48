// GPU kernels through cuDNN (whitepaper 5.4) besides convolutions: MaxPool, AvgPool and their
// gradients (NHWC; AvgPool excludes padding, as TensorFlow's SAME average pooling does), Relu,
// Sigmoid and Tanh (cudnnActivationForward over the flat tensor), Softmax and LogSoftmax over the
// last dimension (cudnnSoftmaxForward, accurate mode). Their gradients that are element-wise
// (ReluGrad, ...) are in cwise_ops.cc. Asymmetric SAME padding (the odd row/column at the
// bottom/right): max pooling pads the input explicitly with -inf there and runs cuDNN with the
// smaller symmetric padding (its gradient is cropped back); average pooling, whose divisor
// excludes padding, runs the kernels of window_launch.h instead.
#include <limits>

#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/cudnn_util.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/window_launch.h"

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
    const Tensor& grad = ctx->input(kGrad ? ctx->num_inputs() - 1 : 0);
    if (kGrad)
      OP_REQUIRES(ctx, grad.shape().dim_sizes() == s.OutputDims(),
                  InvalidArgument("grad has shape ", grad.shape().DebugString(), ", expected ",
                                  DimsString(s.OutputDims())));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape(kGrad ? s.InputDims() : s.OutputDims()), &out));
    if (out->NumElements() == 0) return;
    // cuDNN runs on `ps`: the input grown at the bottom/right where SAME padding is asymmetric.
    auto padded_shape = SymmetricPaddedShape(s);
    OP_REQUIRES_OK(ctx, padded_shape.status());
    if (kMode != CUDNN_POOLING_MAX && NeedsExplicitPadding(s, *padded_shape))
      RunAveragePadded(ctx, s, out);
    else
      OP_REQUIRES_OK(ctx, Run(ctx, s, *padded_shape, out));
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

  // Average pooling with asymmetric padding: explicit zeros would count in cuDNN's divisor, so
  // window_launch.h's kernels run it, on the compute stream.
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

  // cuDNN on `ps` (SymmetricPaddedShape(s)); when it grows the input, orig_input is copied into
  // a temporary padded with -inf at the bottom/right (never a window's maximum: every SAME
  // window holds an input element) and the gradient is computed for that padded input and
  // cropped into `out`. Average pooling gets here only with symmetric padding.
  Status Run(OpKernelContext* ctx, const Conv2DShape& s, const Conv2DShape& ps,
             Tensor* out) const {
    GpuDevice* gpu = GpuOf(ctx);
    cudaStream_t stream = gpu->compute_stream();
    const bool pad = NeedsExplicitPadding(s, ps);
    const int64_t extra_rows = ps.rows.in - s.rows.in, extra_cols = ps.cols.in - s.cols.in;
    ASSIGN_OR_RETURN(TensorDesc x, NhwcDesc(kCudnnType<T>, ps.InputDims()));
    ASSIGN_OR_RETURN(TensorDesc y, NhwcDesc(kCudnnType<T>, ps.OutputDims()));
    ASSIGN_OR_RETURN(PoolDesc pool, PoolingDesc(ps));
    Tensor x_padded, dx_padded;
    const T* x_data = (!kGrad || kMode == CUDNN_POOLING_MAX) ? ctx->input(0).data<T>() : nullptr;
    if (pad) {
      RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape(ps.InputDims()),
                                         &x_padded));
      LaunchPadBottomRight<T>(x_data, s.batch, s.rows.in, s.cols.in, s.in_depth, extra_rows,
                              extra_cols, -std::numeric_limits<T>::infinity(),
                              x_padded.data<T>(), stream);
      x_data = x_padded.data<T>();
    }
    const T one = 1, zero = 0;
    std::lock_guard<std::mutex> l(*gpu->library_mu());
    if (!kGrad) {
      FB_CUDNN_RETURN_IF_ERROR(cudnnPoolingForward(gpu->cudnn(), pool.get(), &one, x.get(),
                                                   x_data, &zero, y.get(), out->data<T>()));
      return Status::OK();
    }
    // MaxPoolGrad: x = orig_input, y = orig_output. Average pooling reads neither: AvgPoolGrad
    // passes its gradient (input 1) as y and the output buffer as x.
    T* dx = out->data<T>();
    if (pad) {
      RETURN_IF_ERROR(ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape(ps.InputDims()),
                                         &dx_padded));
      dx = dx_padded.data<T>();
    }
    if (x_data == nullptr) x_data = dx;
    FB_CUDNN_RETURN_IF_ERROR(cudnnPoolingBackward(
        gpu->cudnn(), pool.get(), &one, y.get(), ctx->input(1).data<T>(), y.get(),
        ctx->input(ctx->num_inputs() - 1).data<T>(), x.get(), x_data, &zero, x.get(), dx));
    if (pad)
      LaunchCropBottomRight<T>(dx, s.batch, s.rows.in, s.cols.in, s.in_depth, extra_rows,
                               extra_cols, out->data<T>(), stream);
    return Status::OK();
  }

  static StatusOr<PoolDesc> PoolingDesc(const Conv2DShape& s) {
    cudnnPoolingDescriptor_t p;
    FB_CUDNN_RETURN_IF_ERROR(cudnnCreatePoolingDescriptor(&p));
    PoolDesc pool(p);
    FB_CUDNN_RETURN_IF_ERROR(cudnnSetPooling2dDescriptor(
        p, kMode, CUDNN_NOT_PROPAGATE_NAN, static_cast<int>(s.rows.window),
        static_cast<int>(s.cols.window), static_cast<int>(s.rows.pad_before),
        static_cast<int>(s.cols.pad_before), static_cast<int>(s.rows.stride),
        static_cast<int>(s.cols.stride)));
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
