// GPU MaxPool and MaxPoolGrad (NHWC, float and double) through flowbench's own kernels
// (window_launch.h), not cuDNN. cuDNN's NHWC pooling backward was the slowest part of GoogLeNet's
// GPU step after the convolutions (10.9 ms of 13 MaxPoolGrad nodes in a traced H200 step, 2.4 ms
// at pool1), and cuDNN cannot express TensorFlow's asymmetric SAME padding, so three of
// GoogLeNet's pools (112 -> 56, 56 -> 28, 28 -> 14) also paid for a -inf padded copy of the
// input and a cropped copy of the gradient. Here the padding is implicit (windows are clipped
// to the input) and the gradient is computed as PyTorch's and TensorFlow's MaxPoolWithArgmax
// do: each window's argmax (kernels/cpu's rule: the first NaN, else the first maximum, in
// row-major window order), then one thread per input element gathering the gradients of the
// windows whose argmax it is. No atomics: results equal the CPU kernel's, bit for bit.
#include <cstdint>
#include <limits>

#include "engine/ops/nn_ops_common.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/window_launch.h"

namespace fb::gpu {
namespace {

PoolGeometry ToPoolGeometry(const Conv2DShape& s) {
  PoolGeometry g;
  g.batch = s.batch, g.rows = s.rows.in, g.cols = s.cols.in, g.depth = s.in_depth;
  g.out_rows = s.rows.out, g.out_cols = s.cols.out;
  g.window_rows = s.rows.window, g.window_cols = s.cols.window;
  g.stride_rows = s.rows.stride, g.stride_cols = s.cols.stride;
  g.pad_rows = s.rows.pad_before, g.pad_cols = s.cols.pad_before;
  return g;
}

class GpuMaxPoolBase : public OpKernel {
 public:
  explicit GpuMaxPoolBase(OpKernelConstruction* c) : OpKernel(c) {
    auto attrs = ParseWindow2DAttrs(c->def().attrs, /*pooling=*/true);
    if (attrs.ok()) attrs_ = *attrs;
    else c->SetStatus(attrs.status());
  }

 protected:
  // The pooling geometry of input 0, and a check that `pooled` (if given) has the output shape
  // (the CPU kernel's message).
  StatusOr<Conv2DShape> Shape(OpKernelContext* ctx, const Tensor* pooled = nullptr,
                              const char* pooled_name = "") const {
    ASSIGN_OR_RETURN(Conv2DShape s, ComputePool2DShape(ctx->input(0).shape().dim_sizes(), attrs_));
    if (pooled && pooled->shape().dim_sizes() != s.OutputDims())
      return InvalidArgument(pooled_name, " must have the pooled shape ",
                             DimsString(s.OutputDims()), ", got shape ",
                             pooled->shape().DebugString());
    return s;
  }

  Window2DAttrs attrs_;
};

template <typename T>
class GpuMaxPoolOp : public GpuMaxPoolBase {
 public:
  using GpuMaxPoolBase::GpuMaxPoolBase;
  void Compute(OpKernelContext* ctx) override {
    auto shape = Shape(ctx);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(shape->OutputDims()), &out));
    if (out->NumElements() == 0) return;
    LaunchMaxPool<T>(ctx->input(0).data<T>(), ToPoolGeometry(*shape), out->data<T>(),
                     GpuOf(ctx)->compute_stream());
  }
};

// Inputs: orig_input [batch, rows, cols, depth], orig_output and grad [batch, out_rows,
// out_cols, depth]. orig_output is only checked for its shape: the argmax is recomputed from
// orig_input, as the CPU kernel does.
template <typename T>
class GpuMaxPoolGradOp : public GpuMaxPoolBase {
 public:
  using GpuMaxPoolBase::GpuMaxPoolBase;
  void Compute(OpKernelContext* ctx) override {
    auto shape = Shape(ctx, &ctx->input(1), "orig_output");
    OP_REQUIRES_OK(ctx, shape.status());
    const Tensor& grad = ctx->input(2);
    OP_REQUIRES_OK(ctx, Shape(ctx, &grad, "grad").status());
    const Conv2DShape& s = *shape;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out));
    if (out->NumElements() == 0) return;
    const bool small = s.rows.in * s.cols.in <= std::numeric_limits<int32_t>::max();
    Tensor argmax;  // scratch: freed at return, reused only by work queued after ours
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(small ? DataType::kInt32 : DataType::kInt64,
                                           TensorShape(s.OutputDims()), &argmax));
    const PoolGeometry g = ToPoolGeometry(s);
    cudaStream_t stream = GpuOf(ctx)->compute_stream();
    const T* x = ctx->input(0).data<T>();
    if (small)
      LaunchMaxPoolGrad<T, int32_t>(x, grad.data<T>(), g, argmax.data<int32_t>(), out->data<T>(),
                                    stream);
    else
      LaunchMaxPoolGrad<T, int64_t>(x, grad.data<T>(), g, argmax.data<int64_t>(), out->data<T>(),
                                    stream);
  }
};

FB_REGISTER_GPU_FD("MaxPool", GpuMaxPoolOp);
FB_REGISTER_GPU_FD("MaxPoolGrad", GpuMaxPoolGradOp);

}  // namespace
}  // namespace fb::gpu
