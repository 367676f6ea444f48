// CPU kernels of MatMul and BatchMatMul (engine/ops/math_matrix_ops.cc): one OpenBLAS gemm per
// matrix product, large ones split over the intra-op pool (ShardedGemm); BatchMatMul loops over
// the batch.
#include "kernels/cpu/matmul.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "engine/framework/op_kernel.h"
#include "engine/framework/thread_pool.h"
#include "kernels/cpu/matmul_op.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {

StatusOr<GemmDims> MatMulDims(const TensorShape& a, bool transpose_a, const TensorShape& b,
                              bool transpose_b) {
  auto last2 = [](const TensorShape& s, bool t, int64_t* rows, int64_t* cols) {
    *rows = s.dim_size(s.rank() - (t ? 1 : 2));
    *cols = s.dim_size(s.rank() - (t ? 2 : 1));
  };
  GemmDims d;
  int64_t kb;
  last2(a, transpose_a, &d.m, &d.k);
  last2(b, transpose_b, &kb, &d.n);
  if (d.k != kb)
    return InvalidArgument("matrix size-incompatible: In[0]: ", a.DebugString(),
                           transpose_a ? " (transposed)" : "", ", In[1]: ", b.DebugString(),
                           transpose_b ? " (transposed)" : "");
  if (d.m > INT_MAX || d.k > INT_MAX || d.n > INT_MAX)
    return InvalidArgument("matrix dimensions exceed ", INT_MAX, ": In[0]: ", a.DebugString(),
                           ", In[1]: ", b.DebugString());
  return d;
}

namespace {

Status CheckMatMulRanks(const TensorShape& a, const TensorShape& b, bool batched) {
  if (!batched) {
    if (a.rank() != 2) return InvalidArgument("In[0] must be a matrix, got shape ", a.DebugString());
    if (b.rank() != 2) return InvalidArgument("In[1] must be a matrix, got shape ", b.DebugString());
    return Status::OK();
  }
  bool same_batch = a.rank() >= 2 && a.rank() == b.rank();
  for (int i = 0; same_batch && i < a.rank() - 2; ++i) same_batch = a.dim_size(i) == b.dim_size(i);
  if (!same_batch)
    return InvalidArgument("inputs must have rank >= 2 and equal batch dimensions, got ",
                           a.DebugString(), " and ", b.DebugString());
  return Status::OK();
}

}  // namespace

StatusOr<MatMulPlan> PlanMatMul(const TensorShape& a, bool transpose_a, const TensorShape& b,
                                bool transpose_b, bool batched) {
  RETURN_IF_ERROR(CheckMatMulRanks(a, b, batched));
  MatMulPlan p;
  ASSIGN_OR_RETURN(p.dims, MatMulDims(a, transpose_a, b, transpose_b));
  p.out_shape = a;
  p.out_shape.set_dim(a.rank() - 2, p.dims.m);
  p.out_shape.set_dim(a.rank() - 1, p.dims.n);
  const int64_t mn = p.dims.m * p.dims.n;
  p.batch = mn == 0 ? 0 : p.out_shape.num_elements() / mn;
  return p;
}

namespace {

// c[m, n] (leading dimension ldc) = op(a) x op(b), a's and b's leading dimensions given.
template <typename T>
void GemmStrided(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, const T* a,
                 int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc) {
  const CBLAS_TRANSPOSE ta = transpose_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = transpose_b ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0f, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                0.0f, c, static_cast<int>(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), 1.0, a, static_cast<int>(lda), b, static_cast<int>(ldb),
                0.0, c, static_cast<int>(ldc));
}

}  // namespace

template <typename T>
void Gemm(const GemmDims& d, bool transpose_a, bool transpose_b, const T* a, const T* b, T* c) {
  if (d.m == 0 || d.n == 0) return;
  if (d.k == 0) {
    std::fill(c, c + d.m * d.n, T(0));
    return;
  }
  GemmStrided(transpose_a, transpose_b, d.m, d.n, d.k, a, transpose_a ? d.m : d.k, b,
              transpose_b ? d.k : d.n, c, d.n);
}

template <typename T>
void ShardedGemm(ThreadPool* pool, const GemmDims& d, bool transpose_a, bool transpose_b,
                 const T* a, const T* b, T* c) {
  // Bands are multiples of 16 rows or columns (whole micro-tiles of OpenBLAS's kernels). Their
  // number depends on the shapes only, so that the result does not depend on the thread count.
  constexpr int64_t kAlign = 16, kParts = 4;
  const bool by_rows = d.m >= d.n;
  const int64_t extent = by_rows ? d.m : d.n;
  if (openblas_get_num_threads() > 1 || d.k == 0 || d.m * d.n * d.k < kShardGemmMinMacs ||
      extent < 2 * kAlign)
    return Gemm(d, transpose_a, transpose_b, a, b, c);
  const int64_t parts = std::min<int64_t>(kParts, extent / kAlign);
  const int64_t band = (extent / parts + kAlign - 1) / kAlign * kAlign;
  const int64_t bands = (extent + band - 1) / band;
  const int64_t lda = transpose_a ? d.m : d.k, ldb = transpose_b ? d.k : d.n;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t lo = i * band, len = std::min(extent, lo + band) - lo;
      if (by_rows)  // rows lo.. of op(a) and of c
        GemmStrided(transpose_a, transpose_b, len, d.n, d.k, a + (transpose_a ? lo : lo * d.k),
                    lda, b, ldb, c + lo * d.n, d.n);
      else  // columns lo.. of op(b) and of c
        GemmStrided(transpose_a, transpose_b, d.m, len, d.k, a, lda,
                    b + (transpose_b ? lo * d.k : lo), ldb, c + lo, d.n);
    }
  };
  if (pool == nullptr) return run(0, bands);
  // About 4 multiply-adds per ns: far above ParallelFor's smallest shard, so one band per shard.
  pool->ParallelFor(bands, d.m * d.n * d.k / bands / 4, run);
}

void SetBlasThreads(int threads) { openblas_set_num_threads(std::max(1, threads)); }

namespace {
// The process-wide default of SetBlasThreads, applied when this library loads (after OpenBLAS
// initialised itself): one thread, unless OPENBLAS_NUM_THREADS says otherwise. OpenBLAS's own
// default (one thread per core) spins its workers between calls, and on a machine with other
// work its callers wait for descheduled workers: the character LSTM (issue 16) ran 5-10x
// slower per step, using 10x the CPU time, with both cores busy.
const bool kBlasThreadsDefaulted = [] {
  if (std::getenv("OPENBLAS_NUM_THREADS") == nullptr) SetBlasThreads(1);
  return true;
}();
}  // namespace

template void Gemm<float>(const GemmDims&, bool, bool, const float*, const float*, float*);
template void Gemm<double>(const GemmDims&, bool, bool, const double*, const double*, double*);
template void ShardedGemm<float>(ThreadPool*, const GemmDims&, bool, bool, const float*,
                                 const float*, float*);
template void ShardedGemm<double>(ThreadPool*, const GemmDims&, bool, bool, const double*,
                                  const double*, double*);

namespace {

// MatMul and BatchMatMul: one BLAS GEMM per product (checks in matmul_op.h, shared with the GPU).
template <typename T, bool kBatched>
class MatMulOp : public MatMulOpBase<kBatched> {
 public:
  using MatMulOpBase<kBatched>::MatMulOpBase;

 protected:
  Status Multiply(OpKernelContext* ctx, const MatMulPlan& p, const Tensor& a, const Tensor& b,
                  Tensor* out) override {
    const GemmDims& d = p.dims;
    for (int64_t i = 0; i < p.batch; ++i)
      ShardedGemm<T>(ctx->intra_op_pool(), d, this->transpose_a_, this->transpose_b_,
                     a.data<T>() + i * d.m * d.k, b.data<T>() + i * d.k * d.n,
                     out->data<T>() + i * d.m * d.n);
    return Status::OK();
  }
};

FB_REGISTER_CPU_T("MatMul", float, MatMulOp<float, false>);
FB_REGISTER_CPU_T("MatMul", double, MatMulOp<double, false>);
FB_REGISTER_CPU_T("BatchMatMul", float, MatMulOp<float, true>);
FB_REGISTER_CPU_T("BatchMatMul", double, MatMulOp<double, true>);

}  // namespace
}  // namespace fb
