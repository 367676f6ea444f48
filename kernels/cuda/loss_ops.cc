// GPU kernel of SparseSoftmaxCrossEntropyWithLogits (engine/ops/nn_ops_softmax.cc; T float or
// double, Tlabels int32 or int64). Labels arrive in GPU memory (a host-memory tensor is copied
// there first). An asynchronous kernel, like GPU CheckNumerics (debug_ops.cc): it queues the
// loss kernel, which records the first label outside [0, classes), and a 16-byte copy of that
// record into pinned memory, then finishes from a host callback once the compute stream reaches
// it: InvalidArgument in the CPU kernel's words ("received a label value of 10 at index 3,
// outside the valid range of [0, 10)"; the executor prefixes the node's name), else OK. No
// executor thread waits for the GPU.
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/state_launch.h"
#include "kernels/cuda/state_util.h"

namespace fb::gpu {
namespace {

// The CPU kernel's shape check: features [batch, classes], labels [batch].
Status CheckSparseLossShapes(const Tensor& features, const Tensor& labels) {
  if (features.dims() != 2)
    return InvalidArgument("features must be 2-D [batch, classes], got shape ",
                           features.shape().DebugString());
  if (labels.dims() != 1 || labels.dim_size(0) != features.dim_size(0))
    return InvalidArgument("labels must have shape [batch] = [", features.dim_size(0),
                           "] to match features ", features.shape().DebugString(),
                           ", got shape ", labels.shape().DebugString());
  return Status::OK();
}

template <typename T, typename Index>
class GpuSparseSoftmaxXentOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    GpuDevice* gpu = GpuOf(ctx);
    const Tensor& features = ctx->input(0);
    OP_REQUIRES_OK_ASYNC(ctx, CheckSparseLossShapes(features, ctx->input(1)), done);
    auto labels = InputOnGpu(ctx, 1);
    OP_REQUIRES_OK_ASYNC(ctx, labels.status(), done);
    const int64_t batch = features.dim_size(0), classes = features.dim_size(1);
    Tensor *loss, *backprop;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, TensorShape{batch}, &loss), done);
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(1, features.shape(), &backprop), done);
    Tensor bad;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_temp(DataType::kInt64, {2}, &bad), done);
    auto host = AllocateTensor(DataType::kInt64, {2}, gpu->pinned_allocator());
    OP_REQUIRES_OK_ASYNC(ctx, host.status(), done);
    cudaStream_t s = gpu->compute_stream();
    LaunchSparseSoftmaxXent<T, Index>(features.data<T>(), labels->template data<Index>(),
                                      loss->data<T>(), backprop->data<T>(), batch, classes,
                                      bad.data<int64_t>(), s);
    OP_REQUIRES_OK_ASYNC(ctx, CudaStatus(cudaGetLastError(), "SparseSoftmaxXent launch"), done);
    OP_REQUIRES_OK_ASYNC(ctx,
                         CudaStatus(cudaMemcpyAsync(host->raw_data(), bad.raw_data(),
                                                    2 * sizeof(int64_t), cudaMemcpyDeviceToHost,
                                                    s),
                                    "cudaMemcpyAsync"),
                         done);
    // The callback holds the labels, the record and its host copy until the stream has used them.
    Tensor labels_on_gpu = *labels, h = *host;
    Status st = gpu->ThenExecute([ctx, done, labels_on_gpu, bad, h, classes]() {
      const int64_t index = h.data<int64_t>()[0];
      if (index >= 0)
        ctx->SetStatus(InvalidArgument("received a label value of ", h.data<int64_t>()[1],
                                       " at index ", index, ", outside the valid range of [0, ",
                                       classes, ")"));
      done();
    });
    OP_REQUIRES_OK_ASYNC(ctx, st, done);
  }
};

#define FB_REGISTER_SPARSE_XENT(T, Index)                                  \
  REGISTER_KERNEL(KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")  \
                      .Device(DEVICE_GPU)                                  \
                      .TypeConstraint<T>("T")                              \
                      .TypeConstraint<Index>("Tlabels"),                   \
                  GpuSparseSoftmaxXentOp<T, Index>)
FB_REGISTER_SPARSE_XENT(float, int32_t);
FB_REGISTER_SPARSE_XENT(float, int64_t);
FB_REGISTER_SPARSE_XENT(double, int32_t);
FB_REGISTER_SPARSE_XENT(double, int64_t);
#undef FB_REGISTER_SPARSE_XENT

}  // namespace
}  // namespace fb::gpu
