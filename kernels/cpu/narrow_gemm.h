#pragma once
// Row-major float GEMMs whose product has few columns (n <= kNarrowGemmMaxN), for convolutions
// with few filters (LeNet: 6 and 16). OpenBLAS runs such products at a fraction of its peak
// (packing a 6- or 16-wide panel per call costs about as much as the arithmetic; LeNet's conv2
// forward ran at 22 GFLOP/s); these keep the whole n-wide output row in one or two 8-float
// vector registers per output row and stream the k dimension through broadcasts and FMAs.
//   NarrowGemmNN: c[m, n] = a[m, k] x b[k, n]             (1x1 Conv2D: input x filter)
//   NarrowGemmTN: c[k, n] = a[m, k]^T x b[m, n] + beta * c  (1x1 Conv2DBackpropFilter)
// (Larger filters use the direct kernels of narrow_conv.h, built on the same register blocks.)
// The summation order over k (NN) or m (TN) is sequential, so results equal a plain loop's up
// to FMA contraction; they differ from OpenBLAS's by float rounding only.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace fb::nn {

inline constexpr int64_t kNarrowGemmMaxN = 16;

namespace narrow_internal {

typedef float V8 __attribute__((vector_size(32)));

inline V8 Splat(float x) { return V8{x, x, x, x, x, x, x, x}; }

// Rows [0, R) of c = a x bp, where bp is b padded to NV * 8 columns (zeros past n).
template <int R, int NV>
void RowsNN(int64_t n, int64_t k, const float* a, int64_t lda, const V8* bp, float* c,
            int64_t ldc) {
  V8 acc[R][NV] = {};
  for (int64_t kk = 0; kk < k; ++kk) {
    V8 b[NV];
    #pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) b[v] = bp[kk * NV + v];
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V8 x = Splat(a[r * lda + kk]);
      #pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] += x * b[v];
    }
  }
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    float row[NV * 8];
    std::memcpy(row, acc[r], sizeof(row));
    std::copy_n(row, n, c + r * ldc);
  }
}

template <int NV>
void GemmNN(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
            int64_t ldb, float* c, int64_t ldc) {
  std::vector<V8> bp(k * NV);
  for (int64_t kk = 0; kk < k; ++kk) {
    float row[NV * 8] = {};
    std::copy_n(b + kk * ldb, n, row);
    std::memcpy(&bp[kk * NV], row, sizeof(row));
  }
  constexpr int R = NV == 1 ? 8 : 6;  // accumulators: R * NV of the 16 vector registers
  int64_t i = 0;
  for (; i + R <= m; i += R) RowsNN<R, NV>(n, k, a + i * lda, lda, bp.data(), c + i * ldc, ldc);
  for (; i < m; ++i) RowsNN<1, NV>(n, k, a + i * lda, lda, bp.data(), c + i * ldc, ldc);
}

// acc rows [k0, k0 + R) of c += a[rows, k0:k0+R]^T x bp[rows] over `rows` rows, where bp holds
// b's rows padded to NV * 8 columns; cp is c padded the same way.
template <int R, int NV>
void RowsTN(int64_t rows, int64_t k0, const float* a, int64_t lda, const V8* bp, V8* cp) {
  V8 acc[R][NV];
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[r][v] = cp[(k0 + r) * NV + v];
  for (int64_t i = 0; i < rows; ++i) {
    V8 b[NV];
    #pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) b[v] = bp[i * NV + v];
    #pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V8 x = Splat(a[i * lda + k0 + r]);
      #pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] += x * b[v];
    }
  }
  #pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
    #pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) cp[(k0 + r) * NV + v] = acc[r][v];
}

template <int NV>
void GemmTN(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
            int64_t ldb, float beta, float* c, int64_t ldc) {
  std::vector<V8> cp(k * NV);
  for (int64_t kk = 0; kk < k; ++kk) {
    float row[NV * 8] = {};
    if (beta != 0)
      for (int64_t j = 0; j < n; ++j) row[j] = beta * c[kk * ldc + j];
    std::memcpy(&cp[kk * NV], row, sizeof(row));
  }
  // Chunks of rows small enough that a's and b's rows stay in L1 across the passes over k.
  constexpr int64_t kChunk = 64;
  constexpr int R = NV == 1 ? 8 : 6;
  std::vector<V8> bp(kChunk * NV);
  for (int64_t i0 = 0; i0 < m; i0 += kChunk) {
    const int64_t rows = std::min(kChunk, m - i0);
    for (int64_t i = 0; i < rows; ++i) {
      float row[NV * 8] = {};
      std::copy_n(b + (i0 + i) * ldb, n, row);
      std::memcpy(&bp[i * NV], row, sizeof(row));
    }
    const float* ai = a + i0 * lda;
    int64_t kk = 0;
    for (; kk + R <= k; kk += R) RowsTN<R, NV>(rows, kk, ai, lda, bp.data(), cp.data());
    for (; kk < k; ++kk) RowsTN<1, NV>(rows, kk, ai, lda, bp.data(), cp.data());
  }
  for (int64_t kk = 0; kk < k; ++kk) {
    float row[NV * 8];
    std::memcpy(row, &cp[kk * NV], sizeof(row));
    std::copy_n(row, n, c + kk * ldc);
  }
}

}  // namespace narrow_internal

// c[m, n] = a[m, k] x b[k, n], row-major with leading dimensions lda, ldb, ldc; n must be in
// [1, kNarrowGemmMaxN].
inline void NarrowGemmNN(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                         const float* b, int64_t ldb, float* c, int64_t ldc) {
  if (n <= 8) narrow_internal::GemmNN<1>(m, n, k, a, lda, b, ldb, c, ldc);
  else narrow_internal::GemmNN<2>(m, n, k, a, lda, b, ldb, c, ldc);
}

// c[k, n] = a[m, k]^T x b[m, n] + beta * c, row-major with leading dimensions lda, ldb, ldc; n
// must be in [1, kNarrowGemmMaxN]. With beta == 0, c is not read.
inline void NarrowGemmTN(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                         const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  if (n <= 8) narrow_internal::GemmTN<1>(m, n, k, a, lda, b, ldb, beta, c, ldc);
  else narrow_internal::GemmTN<2>(m, n, k, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace fb::nn
