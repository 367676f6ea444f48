#pragma once
// Row-major (batched) matrix products on the GPU through cuBLAS (whitepaper 5.4), shared by the
// MatMul/BatchMatMul kernels and benchmarks/gemm_gpubench.cc. cuBLAS is column-major, so the
// row-major C = op(A) op(B) is computed as the column-major C^T = op(B)^T op(A)^T (no copies).
//
// float and double use cublas{S,D}gemmStridedBatched with the handle's math mode: TF32 unless the
// device was created with FLOWBENCH_GPU_ALLOW_TF32=0. __half (HGEMM) uses
// cublasGemmStridedBatchedEx with fp16 inputs and outputs and fp32 accumulation. Enqueued on the
// device's compute stream; returns at once. Internal for a cuBLAS error.
#include <cuda_fp16.h>

#include "kernels/cpu/matmul.h"
#include "kernels/cuda/gpu_device.h"

namespace fb::gpu {

// For i < batch: c_i[m, n] = op(a_i) op(b_i), where a_i = a + i * m * k (dense [m, k], or [k, m]
// when transpose_a), likewise b_i and c_i. k == 0 writes zeros.
template <typename T>
Status Gemm(GpuDevice* gpu, const GemmDims& d, bool transpose_a, bool transpose_b, const T* a,
            const T* b, T* c, int64_t batch = 1);

}  // namespace fb::gpu
