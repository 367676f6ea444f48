// CPU kernels of MatMul and BatchMatMul (engine/ops/math_matrix_ops.cc): one OpenBLAS gemm per
// matrix product; BatchMatMul loops over the batch.
#include "kernels/cpu/matmul.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "engine/framework/op_kernel.h"
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

template <typename T>
void Gemm(const GemmDims& d, bool transpose_a, bool transpose_b, const T* a, const T* b, T* c) {
  if (d.m == 0 || d.n == 0) return;
  if (d.k == 0) {
    std::fill(c, c + d.m * d.n, T(0));
    return;
  }
  const int m = static_cast<int>(d.m), n = static_cast<int>(d.n), k = static_cast<int>(d.k);
  const CBLAS_TRANSPOSE ta = transpose_a ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE tb = transpose_b ? CblasTrans : CblasNoTrans;
  const int lda = transpose_a ? m : k, ldb = transpose_b ? k : n;
  if constexpr (std::is_same_v<T, float>)
    cblas_sgemm(CblasRowMajor, ta, tb, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, n);
  else
    cblas_dgemm(CblasRowMajor, ta, tb, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, n);
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

namespace {

// MatMul and BatchMatMul: one BLAS GEMM per product (checks in matmul_op.h, shared with the GPU).
template <typename T, bool kBatched>
class MatMulOp : public MatMulOpBase<kBatched> {
 public:
  using MatMulOpBase<kBatched>::MatMulOpBase;

 protected:
  Status Multiply(OpKernelContext*, const MatMulPlan& p, const Tensor& a, const Tensor& b,
                  Tensor* out) override {
    const GemmDims& d = p.dims;
    for (int64_t i = 0; i < p.batch; ++i)
      Gemm<T>(d, this->transpose_a_, this->transpose_b_, a.data<T>() + i * d.m * d.k,
              b.data<T>() + i * d.k * d.n, out->data<T>() + i * d.m * d.n);
    return Status::OK();
  }
};

FB_REGISTER_CPU_T("MatMul", float, MatMulOp<float, false>);
FB_REGISTER_CPU_T("MatMul", double, MatMulOp<double, false>);
FB_REGISTER_CPU_T("BatchMatMul", float, MatMulOp<float, true>);
FB_REGISTER_CPU_T("BatchMatMul", double, MatMulOp<double, true>);

}  // namespace
}  // namespace fb
