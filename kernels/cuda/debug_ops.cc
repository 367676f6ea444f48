// GPU CheckNumerics (float, double): an asynchronous kernel, so no executor thread waits. It
// enqueues a NaN/Inf scan and a 4-byte copy of the flags into pinned memory on the compute stream,
// then finishes from a host callback once the stream reaches it: InvalidArgument
// "<message> : Tensor had NaN values" (same text as the CPU kernel), else the input forwarded.
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

template <typename T>
class GpuCheckNumericsOp : public AsyncOpKernel {
 public:
  explicit GpuCheckNumericsOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    c->SetStatus(c->GetAttr("message", &message_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    GpuDevice* gpu = GpuOf(ctx);
    const Tensor& x = ctx->input(0);
    Tensor flags;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_temp(DataType::kInt32, {1}, &flags), done);
    auto host = AllocateTensor(DataType::kInt32, {1}, gpu->pinned_allocator());
    OP_REQUIRES_OK_ASYNC(ctx, host.status(), done);
    cudaStream_t s = gpu->compute_stream();
    OP_REQUIRES_OK_ASYNC(ctx, CudaStatus(cudaMemsetAsync(flags.raw_data(), 0, 4, s), "memset"),
                         done);
    LaunchCheckNumerics<T>(x.data<T>(), x.NumElements(), flags.data<int32_t>(), s);
    OP_REQUIRES_OK_ASYNC(ctx,
                         CudaStatus(cudaMemcpyAsync(host->raw_data(), flags.raw_data(), 4,
                                                    cudaMemcpyDeviceToHost, s),
                                    "cudaMemcpyAsync"),
                         done);
    Tensor h = *host;
    Status st = gpu->ThenExecute([this, ctx, done, flags, h]() {
      const int f = h.scalar<int32_t>();
      if (f == 0) ctx->forward_input(0, 0);
      else
        ctx->SetStatus(InvalidArgument(message_, " : Tensor had ",
                                       f == 3 ? "Inf and NaN" : (f == 1 ? "NaN" : "Inf"),
                                       " values"));
      done();
    });
    OP_REQUIRES_OK_ASYNC(ctx, st, done);
  }

 private:
  std::string message_;
};

FB_REGISTER_GPU_FD("CheckNumerics", GpuCheckNumericsOp);

}  // namespace
}  // namespace fb::gpu
