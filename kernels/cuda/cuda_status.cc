#include "kernels/cuda/cuda_status.h"

namespace fb::gpu {

Status CudaStatus(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::OK();
  if (e == cudaErrorMemoryAllocation)
    return ResourceExhausted(what, " failed: ", cudaGetErrorName(e));
  return Internal(what, " failed: ", cudaGetErrorName(e), " (", cudaGetErrorString(e), ")");
}

Status CublasStatus(cublasStatus_t e, const char* what) {
  if (e == CUBLAS_STATUS_SUCCESS) return Status::OK();
  if (e == CUBLAS_STATUS_ALLOC_FAILED)
    return ResourceExhausted(what, " failed: ", cublasGetStatusName(e));
  return Internal(what, " failed: ", cublasGetStatusName(e), " (", cublasGetStatusString(e), ")");
}

Status CudnnStatus(cudnnStatus_t e, const char* what) {
  if (e == CUDNN_STATUS_SUCCESS) return Status::OK();
  if (e == CUDNN_STATUS_ALLOC_FAILED)
    return ResourceExhausted(what, " failed: ", cudnnGetErrorString(e));
  return Internal(what, " failed: ", cudnnGetErrorString(e));
}

}  // namespace fb::gpu
