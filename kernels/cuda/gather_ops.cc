// GPU Gather, GatherV2, OneHot and UnsortedSegmentSum (engine/ops/array_gather_ops.cc; the word
// language models' embedding lookup, its gradient and their labels). Values stay in GPU memory;
// indices and segment ids are checked on the host before the launch, exactly as the CPU kernels
// (kernels/cpu/gather_kernels.cc) check them and with their messages ("indices[1,0] = 7 is not in
// [0, 5)"; the executor prefixes the node): that copies the index tensor back and waits for the
// compute stream (the price of the CPU kernel's error instead of TensorFlow's silent zeros). The
// small "host" inputs (GatherV2's axis, OneHot's depth, num_segments) are read with HostInput.
// Inputs that arrive in host memory are copied to the GPU first (CopyFromHost is a no-op for
// tensors already there), so the kernels work whether or not the executor keeps them on the host.
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/gather_io.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gather_kernels.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

using gather_io::CheckIndices;

int64_t DimProduct(const TensorShape& s, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= s.dim_size(i);
  return p;
}

// The single value of a host int tensor, named `what` in the error.
StatusOr<int64_t> HostScalarInt(OpKernelContext* ctx, int i, const char* what) {
  ASSIGN_OR_RETURN(Tensor t, HostInput(ctx, i));
  if (t.NumElements() != 1)
    return InvalidArgument(what, " must be a scalar, got shape ", t.shape().DebugString());
  return IntTensorValues(t)[0];
}

template <typename Index>
class GpuGatherOp : public OpKernel {
 public:
  explicit GpuGatherOp(OpKernelConstruction* c)
      : OpKernel(c), has_axis_(gather_io::ParseGatherAttrs(c)) {}

  void Compute(OpKernelContext* ctx) override { OP_REQUIRES_OK(ctx, Run(ctx)); }

 private:
  Status Run(OpKernelContext* ctx) const {
    const Tensor& params = ctx->input(0);
    int64_t axis = 0;
    if (has_axis_) {
      ASSIGN_OR_RETURN(axis, HostScalarInt(ctx, 2, "axis"));
    }
    ASSIGN_OR_RETURN(TensorShape shape, GatherShape(params.shape(), ctx->input(1).shape(), axis));
    const int a = static_cast<int>(axis < 0 ? axis + params.dims() : axis);
    const int64_t outer = DimProduct(params.shape(), 0, a), limit = params.dim_size(a);
    const int64_t inner = DimProduct(params.shape(), a + 1, params.dims());
    ASSIGN_OR_RETURN(Tensor host_indices, HostInput(ctx, 1));
    RETURN_IF_ERROR(CheckIndices<Index>(host_indices, limit, "indices", false));
    Tensor* out;
    RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    GpuDevice* gpu = GpuOf(ctx);
    ASSIGN_OR_RETURN(Tensor indices, gpu->CopyFromHost(ctx->input(1)));
    LaunchGather(params.raw_data(), indices.data<Index>(), out->raw_data(), outer,
                 indices.NumElements(), limit, inner,
                 static_cast<int>(DataTypeSize(params.dtype())), gpu->compute_stream());
    return Status::OK();
  }

  bool has_axis_;
};

template <typename Index>
class GpuOneHotOp : public OpKernel {
 public:
  explicit GpuOneHotOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override { OP_REQUIRES_OK(ctx, Run(ctx)); }

 private:
  Status Run(OpKernelContext* ctx) const {
    const Tensor& indices = ctx->input(0);
    for (int i = 1; i < 4; ++i)
      if (ctx->input(i).dims() != 0)
        return InvalidArgument(i == 1 ? "depth" : i == 2 ? "on_value" : "off_value",
                               " must be a scalar, got shape ",
                               ctx->input(i).shape().DebugString());
    ASSIGN_OR_RETURN(int64_t depth, HostScalarInt(ctx, 1, "depth"));
    ASSIGN_OR_RETURN(TensorShape shape, OneHotShape(indices.shape(), depth, axis_));
    Tensor* out;
    RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    const int a = static_cast<int>(axis_ == -1 ? indices.dims() : axis_);
    const int64_t prefix = DimProduct(indices.shape(), 0, a);
    const int64_t suffix = DimProduct(indices.shape(), a, indices.dims());
    GpuDevice* gpu = GpuOf(ctx);
    ASSIGN_OR_RETURN(Tensor idx, gpu->CopyFromHost(indices));
    ASSIGN_OR_RETURN(Tensor on, gpu->CopyFromHost(ctx->input(2)));
    ASSIGN_OR_RETURN(Tensor off, gpu->CopyFromHost(ctx->input(3)));
    LaunchOneHot(idx.data<Index>(), on.raw_data(), off.raw_data(), out->raw_data(), prefix, depth,
                 suffix, static_cast<int>(DataTypeSize(out->dtype())), gpu->compute_stream());
    return Status::OK();
  }

  int64_t axis_ = -1;
};

template <typename T, typename Index>
class GpuUnsortedSegmentSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { OP_REQUIRES_OK(ctx, Run(ctx)); }

 private:
  static Status Run(OpKernelContext* ctx) {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    ASSIGN_OR_RETURN(int64_t num, HostScalarInt(ctx, 2, "num_segments"));
    ASSIGN_OR_RETURN(TensorShape shape, SegmentSumShape(data.shape(), ids.shape(), num));
    ASSIGN_OR_RETURN(Tensor host_ids, HostInput(ctx, 1));
    RETURN_IF_ERROR(CheckIndices<Index>(host_ids, num, "segment_ids", true));
    Tensor* out;
    RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    if (out->NumElements() == 0) return Status::OK();
    GpuDevice* gpu = GpuOf(ctx);
    FB_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(out->raw_data(), 0, out->ByteSize(), gpu->compute_stream()));
    if (data.NumElements() == 0) return Status::OK();
    ASSIGN_OR_RETURN(Tensor dev_ids, gpu->CopyFromHost(ids));
    const int64_t inner = DimProduct(data.shape(), ids.dims(), data.dims());
    LaunchUnsortedSegmentSum(data.data<T>(), dev_ids.data<Index>(), ids.NumElements(), inner, num,
                             out->data<T>(), gpu->compute_stream());
    return Status::OK();
  }
};

#define FB_REGISTER_ONE_HOT(T, Index)                                                 \
  REGISTER_KERNEL(KernelDefBuilder("OneHot")                                          \
                      .Device(DEVICE_GPU)                                             \
                      .TypeConstraint<T>("T")                                         \
                      .TypeConstraint<Index>("TI")                                    \
                      .HostMemory("depth"),                                           \
                  GpuOneHotOp<Index>)
#define FB_REGISTER_GATHER(T, Index)                                                  \
  REGISTER_KERNEL(KernelDefBuilder("Gather")                                          \
                      .Device(DEVICE_GPU)                                             \
                      .TypeConstraint<T>("Tparams")                                   \
                      .TypeConstraint<Index>("Tindices"),                             \
                  GpuGatherOp<Index>);                                                \
  REGISTER_KERNEL(KernelDefBuilder("GatherV2")                                        \
                      .Device(DEVICE_GPU)                                             \
                      .TypeConstraint<T>("Tparams")                                   \
                      .TypeConstraint<Index>("Tindices")                              \
                      .HostMemory("axis"),                                            \
                  GpuGatherOp<Index>)
#define FB_REGISTER_GATHER_TYPES(T) \
  FB_REGISTER_GATHER(T, int32_t);   \
  FB_REGISTER_GATHER(T, int64_t);   \
  FB_REGISTER_ONE_HOT(T, int32_t);  \
  FB_REGISTER_ONE_HOT(T, int64_t);  \
  FB_REGISTER_ONE_HOT(T, uint8_t)
FB_REGISTER_GATHER_TYPES(float);
FB_REGISTER_GATHER_TYPES(double);
FB_REGISTER_GATHER_TYPES(int64_t);
// int32 params are shapes and loop values (the gradients' Gather of a Shape): Gather and GatherV2
// run on the host there (kernels/cuda/shape_ops.cc), as TensorFlow keeps int32 off the GPU.
// OneHot's int32 output is data and stays here.
FB_REGISTER_ONE_HOT(int32_t, int32_t);
FB_REGISTER_ONE_HOT(int32_t, int64_t);
FB_REGISTER_ONE_HOT(int32_t, uint8_t);
#undef FB_REGISTER_GATHER_TYPES
#undef FB_REGISTER_GATHER
#undef FB_REGISTER_ONE_HOT

#define FB_REGISTER_SEGMENT_SUM(T, Index)                                             \
  REGISTER_KERNEL(KernelDefBuilder("UnsortedSegmentSum")                              \
                      .Device(DEVICE_GPU)                                             \
                      .TypeConstraint<T>("T")                                         \
                      .TypeConstraint<Index>("Tindices")                              \
                      .HostMemory("num_segments"),                                    \
                  GpuUnsortedSegmentSumOp<T, Index>);
FB_REGISTER_SEGMENT_SUM(float, int32_t)
FB_REGISTER_SEGMENT_SUM(float, int64_t)
FB_REGISTER_SEGMENT_SUM(double, int32_t)
FB_REGISTER_SEGMENT_SUM(double, int64_t)
#undef FB_REGISTER_SEGMENT_SUM

}  // namespace
}  // namespace fb::gpu
