// GPU kernels of Fill, ZerosLike, OnesLike (engine/ops/math_autodiff_ops.cc), AddN and Cast
// (engine/ops/math_ops.cc): the constant tensors of initializers and gradients, the sum of the
// gradients reaching one tensor, and the dtype conversions of the metrics (bool -> float for the
// accuracy) and the sampled loss (int32 -> int64). Checks and messages as the CPU kernels
// (kernels/cpu/fill_kernels.cc, addn.cc, cast_kernels.cc); one launch of state_kernels.cu on the
// compute stream each. Fill's dims are read on the host (HostMemory("dims")); its value is read
// by the kernel from GPU memory, so nothing waits for the GPU.
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/fill_io.h"
#include "kernels/cpu/forward_input.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/state_launch.h"
#include "kernels/cuda/state_util.h"

namespace fb::gpu {
namespace {

// y = x's shape filled with kValue (x's values are not read).
template <typename T, int kValue>
class GpuConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &y));
    LaunchFillValue<T>(y->data<T>(), static_cast<T>(kValue), y->NumElements(),
                       GpuOf(ctx)->compute_stream());
  }
};

template <typename T>
class GpuFillOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto dims = HostInput(ctx, 0);
    OP_REQUIRES_OK(ctx, dims.status());
    const Tensor& value = ctx->input(1);
    auto shape = FillShape(*dims, value);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    cudaStream_t s = GpuOf(ctx)->compute_stream();
    if (IsGpuMemory(value))
      LaunchFillFromDevice<T>(out->data<T>(), value.data<T>(), out->NumElements(), s);
    else
      LaunchFillValue<T>(out->data<T>(), value.scalar<T>(), out->NumElements(), s);
  }
};

template <typename T>
class GpuAddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const TensorShape& shape = ctx->input(0).shape();
    for (int i = 1; i < n; ++i)
      OP_REQUIRES(ctx, ctx->input(i).shape() == shape,
                  InvalidArgument("inputs must have equal shapes: input 0 is ",
                                  shape.DebugString(), ", input ", i, " is ",
                                  ctx->input(i).shape().DebugString()));
    if (n == 1) {
      auto x = InputOnGpu(ctx, 0);
      OP_REQUIRES_OK(ctx, x.status());
      return ctx->set_output(0, *x);
    }
    // The sum may overwrite input 0's GPU buffer when nothing else holds it (decided before any
    // copy of the input tensor is taken, which would count as a holder).
    Tensor* out;
    if (IsGpuMemory(ctx->input(0))) {
      auto forwarded = ForwardInputOrAllocateOutput(ctx, 0, 0, ctx->expected_output_dtype(0),
                                                    shape);
      OP_REQUIRES_OK(ctx, forwarded.status());
      out = *forwarded;
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    }
    std::vector<Tensor> copies;  // host-memory inputs copied to the GPU, alive until queued
    std::vector<const T*> inputs;
    for (int i = 0; i < n; ++i) {
      if (IsGpuMemory(ctx->input(i))) {
        inputs.push_back(ctx->input(i).template data<T>());
        continue;
      }
      auto x = InputOnGpu(ctx, i);
      OP_REQUIRES_OK(ctx, x.status());
      copies.push_back(*x);
      inputs.push_back(copies.back().template data<T>());
    }
    LaunchAddN<T>(inputs.data(), n, out->data<T>(), out->NumElements(),
                  GpuOf(ctx)->compute_stream());
  }
};

using CastFn = void (*)(const void*, void*, int64_t, cudaStream_t);

template <typename Src, typename Dst>
void CastThunk(const void* x, void* y, int64_t n, cudaStream_t s) {
  LaunchCast<Src, Dst>(static_cast<const Src*>(x), static_cast<Dst*>(y), n, s);
}

class GpuCastOp : public OpKernel {
 public:
  GpuCastOp(OpKernelConstruction* c, CastFn cast) : OpKernel(c), cast_(cast) {}
  void Compute(OpKernelContext* ctx) override {
    auto x = InputOnGpu(ctx, 0);
    OP_REQUIRES_OK(ctx, x.status());
    if (input_type(0) == output_type(0)) return ctx->set_output(0, *x);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x->shape(), &y));
    cast_(x->raw_data(), y->raw_data(), x->NumElements(), GpuOf(ctx)->compute_stream());
  }

 private:
  CastFn cast_;
};

template <typename Src, typename Dst>
void RegisterCast() {
  KernelRegistry::Global()->Register(
      KernelDefBuilder("Cast").Device(DEVICE_GPU).TypeConstraint(
          "SrcT", DataTypeToEnum<Src>::value).TypeConstraint("DstT", DataTypeToEnum<Dst>::value),
      [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
        return std::make_unique<GpuCastOp>(c, &CastThunk<Src, Dst>);
      });
}

template <typename Src>
void RegisterCastsFrom() {
  RegisterCast<Src, float>();
  RegisterCast<Src, double>();
  RegisterCast<Src, int32_t>();
  RegisterCast<Src, int64_t>();
  RegisterCast<Src, bool>();
}

const bool kCastRegistered = [] {
  RegisterCastsFrom<float>();
  RegisterCastsFrom<double>();
  RegisterCastsFrom<int32_t>();
  RegisterCastsFrom<int64_t>();
  RegisterCastsFrom<bool>();
  return true;
}();

#define FB_REGISTER_FILL(T)                                                                 \
  REGISTER_KERNEL(                                                                          \
      KernelDefBuilder("Fill").Device(DEVICE_GPU).TypeConstraint<T>("T").HostMemory("dims"), \
      GpuFillOp<T>)
#define FB_REGISTER_LIKE(T)                                    \
  FB_REGISTER_GPU_T("ZerosLike", T, GpuConstantLikeOp<T, 0>); \
  FB_REGISTER_GPU_T("OnesLike", T, GpuConstantLikeOp<T, 1>)
FB_REGISTER_FILL(float);
FB_REGISTER_FILL(double);
FB_REGISTER_FILL(int32_t);
FB_REGISTER_FILL(int64_t);
FB_REGISTER_FILL(bool);
// int32 ZerosLike/OnesLike run on the host (kernels/cuda/shape_ops.cc): a loop gradient's int32
// values (counters, shapes) stay in host memory.
FB_REGISTER_LIKE(float);
FB_REGISTER_LIKE(double);
FB_REGISTER_LIKE(int64_t);
FB_REGISTER_LIKE(bool);
#undef FB_REGISTER_LIKE
#undef FB_REGISTER_FILL

FB_REGISTER_GPU_T("AddN", float, GpuAddNOp<float>);
FB_REGISTER_GPU_T("AddN", double, GpuAddNOp<double>);
FB_REGISTER_GPU_T("AddN", int32_t, GpuAddNOp<int32_t>);
FB_REGISTER_GPU_T("AddN", int64_t, GpuAddNOp<int64_t>);

}  // namespace
}  // namespace fb::gpu
