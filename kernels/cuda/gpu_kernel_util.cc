#include "kernels/cuda/gpu_kernel_util.h"

#include "kernels/cpu/bcast.h"
#include "kernels/cuda/cuda_status.h"

namespace fb::gpu {

Status ToBroadcastShape(const TensorShape& x, const TensorShape& y, TensorShape* out_shape,
                        BroadcastShape* b) {
  ASSIGN_OR_RETURN(BCast bc, BCast::Make(x, y));
  *out_shape = bc.output_shape();
  const auto& dims = bc.dims();
  if (dims.size() > static_cast<size_t>(kMaxBroadcastDims))
    return InvalidArgument("broadcast of ", x.DebugString(), " and ", y.DebugString(),
                           " needs ", dims.size(), " dimensions; the GPU kernel handles ",
                           kMaxBroadcastDims);
  *b = BroadcastShape();
  b->rank = static_cast<int>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    b->dims[d] = dims[d];
    b->x_strides[d] = bc.x_strides()[d];
    b->y_strides[d] = bc.y_strides()[d];
  }
  return Status::OK();
}

Status PrepareGpuVarForWrite(OpKernelContext* ctx, Var* var) {
  Tensor* t = var->tensor();
  if (t->BufferRefCount() <= 1) return Status::OK();
  GpuDevice* gpu = GpuOf(ctx);
  ASSIGN_OR_RETURN(Tensor copy, AllocateTensor(t->dtype(), t->shape(), gpu->GetAllocator()));
  FB_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(copy.raw_data(), t->raw_data(), t->ByteSize(),
                                          cudaMemcpyDeviceToDevice, gpu->compute_stream()));
  *t = std::move(copy);
  return Status::OK();
}

}  // namespace fb::gpu
