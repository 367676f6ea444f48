#pragma once
// Matrix products on CPU through OpenBLAS (whitepaper 5.4: "optimized libraries ... BLAS"),
// shared by the MatMul and BatchMatMul kernels and by benchmarks/matmul_bench.cc.
#include <cstdint>

#include "engine/framework/tensor_shape.h"

namespace fb {

class ThreadPool;

// Sizes of one product op(a) x op(b) = [m, k] x [k, n], from the last two dimensions of each
// operand's shape (op transposes when `transpose_*`).
struct GemmDims {
  int64_t m = 0, k = 0, n = 0;
};

// InvalidArgument "matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]" when the inner sizes
// differ, or when a size exceeds what BLAS indexes (int). Shapes must have rank >= 2.
StatusOr<GemmDims> MatMulDims(const TensorShape& a, bool transpose_a, const TensorShape& b,
                              bool transpose_b);

// A MatMul (batched = false: both operands exactly 2-D) or BatchMatMul (rank >= 2, equal batch
// dimensions): the product sizes, the output shape (a's batch dimensions, then [m, n]) and the
// number of products. InvalidArgument naming the shapes otherwise. Shared by the CPU and GPU
// kernels.
struct MatMulPlan {
  GemmDims dims;
  TensorShape out_shape;
  int64_t batch = 0;
};
StatusOr<MatMulPlan> PlanMatMul(const TensorShape& a, bool transpose_a, const TensorShape& b,
                                bool transpose_b, bool batched);

// c[m, n] = op(a) x op(b) for row-major matrices stored densely (a is [m, k], or [k, m] when
// transpose_a; likewise b). T is float (cblas_sgemm) or double (cblas_dgemm). Handles empty
// sizes (k == 0 gives zeros). Thread-safety: OpenBLAS parallelises internally; calls may overlap.
template <typename T>
void Gemm(const GemmDims& d, bool transpose_a, bool transpose_b, const T* a, const T* b, T* c);

// Products of at least this many multiply-adds are split by ShardedGemm (about 0.1 ms on one
// core here); smaller ones lose more to OpenBLAS repacking an operand per part than they gain.
inline constexpr int64_t kShardGemmMinMacs = int64_t{1} << 22;

// Gemm, split over `pool` when OpenBLAS itself runs one thread (SetBlasThreads(1), the default):
// the output is cut into 4 bands of rows, or of columns when op(a) has fewer rows than op(b) has
// columns (a fully connected layer's small batch), each one OpenBLAS call on whichever thread
// claims it (the caller included, ThreadPool::ParallelFor; all on the caller when `pool` is
// null). The bands depend on the shapes only, so the result does not depend on the number of
// threads. One call (Gemm) when OpenBLAS runs several threads or the product has fewer than
// kShardGemmMinMacs multiply-adds. Without this a MatMul ran on one of the two cores: the
// forward fully connected layers of AlexNet and Overfeat left the other idle (issue 16).
template <typename T>
void ShardedGemm(ThreadPool* pool, const GemmDims& d, bool transpose_a, bool transpose_b,
                 const T* a, const T* b, T* c);

// Sets how many threads OpenBLAS itself uses per call (openblas_set_num_threads; process-wide).
// With 1, GEMMs run on the calling thread and parallelism comes from the executor's pools: on a
// loaded machine OpenBLAS's spinning worker threads otherwise stall every call (issue 3 measured
// LeNet steps 20x slower). `flowbench train --blas-threads` sets it. The default, set when the
// program starts, is 1 unless the environment variable OPENBLAS_NUM_THREADS is set.
void SetBlasThreads(int threads);

}  // namespace fb
