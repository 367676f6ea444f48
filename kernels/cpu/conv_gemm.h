#pragma once
// The single-precision GEMM under the CPU convolution kernels (conv_kernels.h: im2col + one GEMM
// per block of patch rows, on the calling thread). Two implementations:
//   - oneDNN's dnnl_sgemm (JIT AVX-512/AVX2 kernels, the library under PyTorch's CPU
//     convolutions), when the build found oneDNN (Debian libdnnl-dev; CMake defines
//     FB_HAVE_DNNL). On the development machine (Xeon, AVX-512) it ran the forward and
//     input-gradient blocks of AlexNet's, Overfeat's and ResNet's convolutions 6-32% faster than
//     OpenBLAS 0.3.21 on one thread (issue 16, docs/benchmarks.md "CPU conv kernels").
//     Filter gradients with more than 1,024 rows (op(a) transposed) stay on OpenBLAS, which
//     was up to 10% faster there (conv_gemm.cc).
//   - OpenBLAS's cblas_sgemm otherwise, or when chosen (SetConvGemmBackend, or the environment
//     variable FLOWBENCH_CONV_GEMM=openblas when the process starts).
// Either runs on the calling thread only: the kernels parallelize over blocks on the intra-op
// pool. Thread-safe.
#include <cstdint>

namespace fb::nn {

enum class ConvGemmBackend { kOpenBlas, kDnnl };

// True when this build can call oneDNN (FB_HAVE_DNNL).
bool DnnlAvailable();

// The backend ConvSgemm uses now: kDnnl when available unless FLOWBENCH_CONV_GEMM=openblas was
// set at start-up or SetConvGemmBackend chose kOpenBlas.
ConvGemmBackend CurrentConvGemmBackend();

// Chooses the backend (process-wide, takes effect for the next call). Returns false, changing
// nothing, when kDnnl is asked for and this build has no oneDNN.
bool SetConvGemmBackend(ConvGemmBackend backend);

// "onednn" or "openblas".
const char* ConvGemmBackendName(ConvGemmBackend backend);

// c[m, n] = alpha * op(a) x op(b) + beta * c, every matrix row-major with the given leading
// dimensions (op transposes when trans_*), on the calling thread. A failed oneDNN call (it
// validates its arguments) falls back to OpenBLAS.
void ConvSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
               int64_t ldc);

}  // namespace fb::nn
