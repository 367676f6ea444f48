#pragma once
// Helpers shared by the CPU neural-net kernels: intra-op sharding of element-wise and row-wise
// work, Eigen views of tensor segments, and the cblas GEMM wrapper (row-major, float/double)
// that the convolution kernels are built on (whitepaper 5.4: kernels are thin wrappers over
// optimized libraries).
#include <cblas.h>

#include <functional>

#include "engine/framework/op_kernel.h"
#include "engine/framework/thread_pool.h"
#include "kernels/cpu/conv_gemm.h"

namespace fb::nn {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Elements [begin, end) of t's flat buffer.
template <typename T>
ArrayMap<T> Segment(const Tensor& t, int64_t begin, int64_t end) {
  return ArrayMap<T>(t.data<T>() + begin, end - begin);
}

// Runs fn(begin, end) over [0, total) on the kernel's intra-op pool, `cost_ns` per unit.
inline void Shard(OpKernelContext* ctx, int64_t total, int64_t cost_ns,
                  const std::function<void(int64_t, int64_t)>& fn) {
  ThreadPool* pool = ctx->intra_op_pool();
  if (pool == nullptr) {
    fn(0, total);
    return;
  }
  pool->ParallelFor(total, cost_ns, fn);
}

// InvalidArgument unless a and b have the same shape ("<a_name> and <b_name> must have the same
// shape, got [2,3] and [3,2]").
inline Status CheckSameShape(const Tensor& a, const char* a_name, const Tensor& b,
                             const char* b_name) {
  if (a.shape() == b.shape()) return Status::OK();
  return InvalidArgument(a_name, " and ", b_name, " must have the same shape, got ",
                         a.shape().DebugString(), " and ", b.shape().DebugString());
}

// C[m, n] = alpha * op(A) * op(B) + beta * C, all row-major with leading dimensions lda, ldb,
// ldc; op(X) = X^T when the trans flag is set. float: ConvSgemm (conv_gemm.h: oneDNN when the
// build has it, else OpenBLAS), double: cblas_dgemm.
inline void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const float* a, int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc) {
  ConvSgemm(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline void Gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                 const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
                 double* c, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
              trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace fb::nn

// Registers Kernel<float> and Kernel<double> for CPU op `op` (type attr "T").
#define FB_REGISTER_FLOAT_KERNELS(op, Kernel)                                               \
  REGISTER_KERNEL(KernelDefBuilder(op).Device(DEVICE_CPU).TypeConstraint<float>("T"),       \
                  Kernel<float>);                                                           \
  REGISTER_KERNEL(KernelDefBuilder(op).Device(DEVICE_CPU).TypeConstraint<double>("T"),      \
                  Kernel<double>)
