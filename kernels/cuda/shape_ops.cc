// GPU kernels of the shape and metadata ops: Shape, Rank, Size, Reshape, ExpandDims, Squeeze,
// StopGradient, BroadcastGradientArgs, ReducedShape, ConcatOffset and InvertPermutation, and the
// int32/int64 arithmetic, comparisons, Slice, ConcatV2 and Transpose of shapes and loop counters.
// As in TensorFlow, their int32/int64 shape, axis and size arguments live in host memory
// (KernelDefBuilder::HostMemory), so each kernel is the CPU kernel itself run by the GPU device:
// it reads only host memory and the metadata (shape, dtype) of GPU tensors, never their data.
// Reshape, ExpandDims, Squeeze and StopGradient output a view of the input's GPU buffer (no copy).
// int32 tensors of the views and of Shape/Size/Rank are host memory throughout (TensorFlow's
// convention for int32 on GPUs), so no value crosses to the device for them.
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

// The CPU kernel of the node, run on the GPU device with the GPU kernel's memory types. Only
// for ops whose CPU kernel reads no GPU data (every data argument it reads is HostMemory).
class HostComputeOp : public OpKernel {
 public:
  explicit HostComputeOp(OpKernelConstruction* c) : OpKernel(c) {
    auto k = KernelRegistry::Global()->CreateKernel(DEVICE_CPU, c->device(), c->def());
    if (!k.ok()) {
      c->SetStatus(k.status());
      return;
    }
    cpu_ = std::move(*k);
    FB_CHECK(cpu_->AsAsync() == nullptr) << "asynchronous CPU kernel " << c->def().op;
  }
  void Compute(OpKernelContext* ctx) override { cpu_->Compute(ctx); }
  bool IsExpensive() const override { return false; }

 private:
  std::unique_ptr<OpKernel> cpu_;
};

// float and double data in GPU memory with the shape arguments `host` on the host; int32 data
// on the host too (`data`: the op's data input and output).
#define FB_GPU(op) KernelDefBuilder(op).Device(DEVICE_GPU)
#define FB_REGISTER_GPU_VIEW(op, host, data)                                         \
  REGISTER_KERNEL(FB_GPU(op).TypeConstraint<float>("T") host, HostComputeOp);       \
  REGISTER_KERNEL(FB_GPU(op).TypeConstraint<double>("T") host, HostComputeOp);      \
  REGISTER_KERNEL(FB_GPU(op).TypeConstraint<int32_t>("T") host data, HostComputeOp)

#define FB_DATA(in) .HostMemory(in).HostMemory("output")
#define FB_REGISTER_GPU_VIEW_INT64(op, host, data) \
  REGISTER_KERNEL(FB_GPU(op).TypeConstraint<int64_t>("T") host data, HostComputeOp)
FB_REGISTER_GPU_VIEW("Reshape", .HostMemory("shape"), FB_DATA("tensor"));
FB_REGISTER_GPU_VIEW("ExpandDims", .HostMemory("dim"), FB_DATA("input"));
FB_REGISTER_GPU_VIEW("Squeeze", , FB_DATA("input"));
FB_REGISTER_GPU_VIEW("StopGradient", , FB_DATA("input"));
FB_REGISTER_GPU_VIEW("Shape", .HostMemory("output"), FB_DATA("input"));
FB_REGISTER_GPU_VIEW("Size", .HostMemory("output"), FB_DATA("input"));
FB_REGISTER_GPU_VIEW("Rank", .HostMemory("output"), FB_DATA("input"));
FB_REGISTER_GPU_VIEW_INT64("Reshape", .HostMemory("shape"), FB_DATA("tensor"));
FB_REGISTER_GPU_VIEW_INT64("ExpandDims", .HostMemory("dim"), FB_DATA("input"));
FB_REGISTER_GPU_VIEW_INT64("Squeeze", , FB_DATA("input"));
FB_REGISTER_GPU_VIEW_INT64("Size", .HostMemory("output"), FB_DATA("input"));
FB_REGISTER_GPU_VIEW_INT64("Shape", .HostMemory("output"), FB_DATA("input"));
#undef FB_REGISTER_GPU_VIEW_INT64
#undef FB_DATA
#undef FB_REGISTER_GPU_VIEW

REGISTER_KERNEL(FB_GPU("BroadcastGradientArgs")
                    .HostMemory("s0").HostMemory("s1").HostMemory("r0").HostMemory("r1"),
                HostComputeOp);
REGISTER_KERNEL(FB_GPU("ReducedShape").HostMemory("input_shape").HostMemory("axes")
                    .HostMemory("output"),
                HostComputeOp);
REGISTER_KERNEL(FB_GPU("ConcatOffset").HostMemory("concat_dim").HostMemory("shape")
                    .HostMemory("offset"),
                HostComputeOp);
REGISTER_KERNEL(FB_GPU("InvertPermutation").HostMemory("x").HostMemory("y"), HostComputeOp);

// int32/int64 shape, index and loop-counter arithmetic and the int copies of shape vectors: in
// host memory on the GPU device, as TensorFlow keeps them (a few elements; a launch and two
// copies would cost more than the work).
#define FB_REGISTER_GPU_HOST_INT(op, args)                                      \
  REGISTER_KERNEL(FB_GPU(op).TypeConstraint<int32_t>("T") args, HostComputeOp); \
  REGISTER_KERNEL(FB_GPU(op).TypeConstraint<int64_t>("T") args, HostComputeOp)
#define FB_XYZ .HostMemory("x").HostMemory("y").HostMemory("z")
FB_REGISTER_GPU_HOST_INT("Add", FB_XYZ);
FB_REGISTER_GPU_HOST_INT("Sub", FB_XYZ);
FB_REGISTER_GPU_HOST_INT("Mul", FB_XYZ);
FB_REGISTER_GPU_HOST_INT("Greater", FB_XYZ);
FB_REGISTER_GPU_HOST_INT("GreaterEqual", FB_XYZ);
FB_REGISTER_GPU_HOST_INT("Less", FB_XYZ);
FB_REGISTER_GPU_HOST_INT("LessEqual", FB_XYZ);
#undef FB_XYZ
FB_REGISTER_GPU_HOST_INT("Slice",
                         .HostMemory("input").HostMemory("begin").HostMemory("size")
                             .HostMemory("output"));
FB_REGISTER_GPU_HOST_INT("ConcatV2",
                         .HostMemory("values").HostMemory("axis").HostMemory("output"));
FB_REGISTER_GPU_HOST_INT("Transpose", .HostMemory("x").HostMemory("perm").HostMemory("y"));
#undef FB_REGISTER_GPU_HOST_INT
// int32 only (fill_ops.cc has the int64 kernels on the device): the while-loop gradient's
// OnesLike of its int32 counter sent the counter to the GPU and its Add copied it back with a
// synchronisation, every iteration.
REGISTER_KERNEL(FB_GPU("ZerosLike").TypeConstraint<int32_t>("T").HostMemory("x").HostMemory("y"),
                HostComputeOp);
REGISTER_KERNEL(FB_GPU("OnesLike").TypeConstraint<int32_t>("T").HostMemory("x").HostMemory("y"),
                HostComputeOp);
// Gather and GatherV2 of int32 params (kernels/cuda/gather_ops.cc has the other types).
#define FB_REGISTER_HOST_GATHER(Index)                                                        \
  REGISTER_KERNEL(FB_GPU("Gather")                                                            \
                      .TypeConstraint<int32_t>("Tparams")                                     \
                      .TypeConstraint<Index>("Tindices")                                      \
                      .HostMemory("params")                                                   \
                      .HostMemory("indices")                                                  \
                      .HostMemory("output"),                                                  \
                  HostComputeOp);                                                             \
  REGISTER_KERNEL(FB_GPU("GatherV2")                                                          \
                      .TypeConstraint<int32_t>("Tparams")                                     \
                      .TypeConstraint<Index>("Tindices")                                      \
                      .HostMemory("params")                                                   \
                      .HostMemory("indices")                                                  \
                      .HostMemory("axis")                                                     \
                      .HostMemory("output"),                                                  \
                  HostComputeOp)
FB_REGISTER_HOST_GATHER(int32_t);
FB_REGISTER_HOST_GATHER(int64_t);
#undef FB_REGISTER_HOST_GATHER
#undef FB_GPU

}  // namespace
}  // namespace fb::gpu
