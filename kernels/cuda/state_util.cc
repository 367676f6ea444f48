#include "kernels/cuda/state_util.h"

#include "engine/framework/tensor_allocate.h"
#include "kernels/cuda/cuda_status.h"

namespace fb::gpu {

StatusOr<Tensor> CopyToNewGpuTensor(OpKernelContext* ctx, const Tensor& t) {
  GpuDevice* gpu = GpuOf(ctx);
  if (!IsGpuMemory(t)) return gpu->CopyFromHost(t);  // always a new tensor for host input
  ASSIGN_OR_RETURN(Tensor copy, AllocateTensor(t.dtype(), t.shape(), gpu->GetAllocator()));
  if (t.ByteSize() > 0)
    FB_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(copy.raw_data(), t.raw_data(), t.ByteSize(),
                                            cudaMemcpyDeviceToDevice, gpu->compute_stream()));
  return copy;
}

}  // namespace fb::gpu
