#pragma once
// CUDA, cuBLAS, cuDNN and NCCL return codes as Status (STYLE.md: library errors become a Status at
// the call site, never an abort). `what` is the call that failed; the message carries the
// library's own error name: "cudaMemcpyAsync(...) failed: cudaErrorInvalidValue (invalid argument)".
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "engine/framework/status.h"

namespace fb::gpu {

Status CudaStatus(cudaError_t e, const char* what);
Status CublasStatus(cublasStatus_t e, const char* what);
Status CudnnStatus(cudnnStatus_t e, const char* what);

}  // namespace fb::gpu

#define FB_CUDA_RETURN_IF_ERROR(expr) RETURN_IF_ERROR(::fb::gpu::CudaStatus((expr), #expr))
#define FB_CUBLAS_RETURN_IF_ERROR(expr) RETURN_IF_ERROR(::fb::gpu::CublasStatus((expr), #expr))
#define FB_CUDNN_RETURN_IF_ERROR(expr) RETURN_IF_ERROR(::fb::gpu::CudnnStatus((expr), #expr))
