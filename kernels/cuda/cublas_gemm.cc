#include "kernels/cuda/cublas_gemm.h"

#include "kernels/cuda/cuda_status.h"

namespace fb::gpu {

template <typename T>
Status Gemm(GpuDevice* gpu, const GemmDims& d, bool transpose_a, bool transpose_b, const T* a,
            const T* b, T* c, int64_t batch) {
  if (d.m == 0 || d.n == 0 || batch == 0) return Status::OK();
  if (d.k == 0) {
    FB_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(c, 0, sizeof(T) * d.m * d.n * batch, gpu->compute_stream()));
    return Status::OK();
  }
  const int m = static_cast<int>(d.m), n = static_cast<int>(d.n), k = static_cast<int>(d.k);
  const int lda = transpose_a ? m : k, ldb = transpose_b ? k : n;
  const cublasOperation_t ta = transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t tb = transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const long long sa = d.m * d.k, sb = d.k * d.n, sc = d.m * d.n;
  std::lock_guard<std::mutex> l(*gpu->library_mu());
  if constexpr (std::is_same_v<T, float>) {
    const float one = 1, zero = 0;
    FB_CUBLAS_RETURN_IF_ERROR(cublasSgemmStridedBatched(gpu->cublas(), tb, ta, n, m, k, &one, b,
                                                        ldb, sb, a, lda, sa, &zero, c, n, sc,
                                                        static_cast<int>(batch)));
  } else if constexpr (std::is_same_v<T, double>) {
    const double one = 1, zero = 0;
    FB_CUBLAS_RETURN_IF_ERROR(cublasDgemmStridedBatched(gpu->cublas(), tb, ta, n, m, k, &one, b,
                                                        ldb, sb, a, lda, sa, &zero, c, n, sc,
                                                        static_cast<int>(batch)));
  } else {
    const float one = 1, zero = 0;
    FB_CUBLAS_RETURN_IF_ERROR(cublasGemmStridedBatchedEx(
        gpu->cublas(), tb, ta, n, m, k, &one, b, CUDA_R_16F, ldb, sb, a, CUDA_R_16F, lda, sa,
        &zero, c, CUDA_R_16F, n, sc, static_cast<int>(batch), CUBLAS_COMPUTE_32F,
        CUBLAS_GEMM_DEFAULT));
  }
  return Status::OK();
}

template Status Gemm<float>(GpuDevice*, const GemmDims&, bool, bool, const float*, const float*,
                            float*, int64_t);
template Status Gemm<double>(GpuDevice*, const GemmDims&, bool, bool, const double*,
                             const double*, double*, int64_t);
template Status Gemm<__half>(GpuDevice*, const GemmDims&, bool, bool, const __half*,
                             const __half*, __half*, int64_t);

}  // namespace fb::gpu
