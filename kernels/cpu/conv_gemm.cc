// ConvSgemm: oneDNN's dnnl_sgemm when the build has it (FB_HAVE_DNNL), else OpenBLAS.
#include "kernels/cpu/conv_gemm.h"

#include <cblas.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#ifdef FB_HAVE_DNNL
#include <dnnl.h>
#include <omp.h>
#endif

namespace fb::nn {
namespace {

// A filter gradient (op(a) = a^T, beta = 1) with more rows than this (patch sizes: filter rows x
// cols x input channels) runs on OpenBLAS even with kDnnl: single-threaded, the smallest time of
// 60 calls at the blocks of AlexNet conv2-conv5, Overfeat conv2-conv3 and ResNet's 14x14 3x3
// (1,600-3,456 rows) was 0-10% shorter with OpenBLAS, while oneDNN was 1-24% faster at 147-1,152
// rows and 6-16% faster in every forward (NN) and input-gradient (NT) block measured.
constexpr int64_t kDnnlMaxTransposedRows = 1024;

ConvGemmBackend DefaultBackend() {
  const char* env = std::getenv("FLOWBENCH_CONV_GEMM");
  if (env != nullptr && std::strcmp(env, "openblas") == 0) return ConvGemmBackend::kOpenBlas;
  return DnnlAvailable() ? ConvGemmBackend::kDnnl : ConvGemmBackend::kOpenBlas;
}

std::atomic<ConvGemmBackend>& Backend() {
  static std::atomic<ConvGemmBackend> backend{DefaultBackend()};
  return backend;
}

void OpenBlasSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                   int64_t ldc) {
  cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

#ifdef FB_HAVE_DNNL
// oneDNN (Debian's build threads with OpenMP) sizes its work by the calling thread's OpenMP
// thread count, which for a thread OpenMP did not start is the number of cores: one call from
// each of the pool's threads would start a team of spinning threads per call. One thread each.
bool DnnlSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc) {
  thread_local const bool single_threaded = [] {
    omp_set_num_threads(1);
    return true;
  }();
  (void)single_threaded;
  return dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb,
                    beta, c, ldc) == dnnl_success;
}
#endif

}  // namespace

bool DnnlAvailable() {
#ifdef FB_HAVE_DNNL
  return true;
#else
  return false;
#endif
}

ConvGemmBackend CurrentConvGemmBackend() { return Backend().load(std::memory_order_relaxed); }

bool SetConvGemmBackend(ConvGemmBackend backend) {
  if (backend == ConvGemmBackend::kDnnl && !DnnlAvailable()) return false;
  Backend().store(backend, std::memory_order_relaxed);
  return true;
}

const char* ConvGemmBackendName(ConvGemmBackend backend) {
  return backend == ConvGemmBackend::kDnnl ? "onednn" : "openblas";
}

void ConvSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc) {
#ifdef FB_HAVE_DNNL
  if (CurrentConvGemmBackend() == ConvGemmBackend::kDnnl &&
      !(trans_a && m > kDnnlMaxTransposedRows) &&
      DnnlSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
    return;
#endif
  OpenBlasSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace fb::nn
