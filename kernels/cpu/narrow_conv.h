#pragma once
// Direct float Conv2D (NHWC input, HWIO filter) for few filters (out_depth <=
// kNarrowGemmMaxN): the narrow GEMM of narrow_gemm.h with the patch matrix read in place from
// the input instead of written by im2col first. For LeNet's shallow layers (1 and 6 input
// channels) writing the patch matrix cost more than the multiply-adds. Each output position is
// summed in patch order (filter row, filter column, channel), as NarrowGemmNN sums a patch row.
// Conv2DBackpropInput of a unit-stride convolution with few input channels is such a convolution
// too (BackpropInputAsConv, TransposedFilter), and NarrowFilterGradient sums a filter gradient
// of few filters the same way (patch values gathered from the input rows, no im2col).
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/ops/nn_ops_common.h"
#include "kernels/cpu/narrow_gemm.h"

namespace fb::nn {

namespace narrow_internal {

// Output positions [ow0, ow0 + R) of output row oh of one image, whose input columns must all
// be in bounds (DirectImage pads the columns first); input rows in the padding are skipped.
template <int R, int NV>
void DirectBlock(const Conv2DShape& s, const float* x, const V8* wp, int64_t oh, int64_t ow0,
                 float* y) {
  V8 acc[R][NV] = {};
  const int64_t depth = s.in_depth, kw_n = s.cols.window;
  const int64_t step = s.cols.stride * depth;  // input offset between neighbouring outputs
  for (int64_t kh = 0; kh < s.rows.window; ++kh) {
    const int64_t ih = oh * s.rows.stride - s.rows.pad_before + kh * s.rows.dilation;
    if (ih < 0 || ih >= s.rows.in) continue;
    const float* xrow = x + ih * s.cols.in * depth;
    for (int64_t kw = 0; kw < kw_n; ++kw) {
      const float* xp = xrow + (ow0 * s.cols.stride + kw * s.cols.dilation) * depth;
      const V8* wk = wp + (kh * kw_n + kw) * depth * NV;
      for (int64_t c = 0; c < depth; ++c) {
        V8 b[NV];
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) b[v] = wk[c * NV + v];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
          const V8 xv = Splat(xp[r * step + c]);
#pragma GCC unroll 8
          for (int v = 0; v < NV; ++v) acc[r][v] += xv * b[v];
        }
      }
    }
  }
  const int64_t n = s.out_depth;
  for (int r = 0; r < R; ++r) {
    float row[NV * 8];
    std::memcpy(row, acc[r], sizeof(row));
    std::copy_n(row, n, y + (oh * s.cols.out + ow0 + r) * n);
  }
}

// `s` with cols.pad_before == 0 (x's columns already padded, see ConvolveImage).
template <int NV>
void DirectImage(const Conv2DShape& s, const float* x, const V8* wp, float* y) {
  constexpr int R = NV == 1 ? 8 : 6;  // accumulators: R * NV of the 16 vector registers
  for (int64_t oh = 0; oh < s.rows.out; ++oh) {
    int64_t ow = 0;
    for (; ow + R <= s.cols.out; ow += R) DirectBlock<R, NV>(s, x, wp, oh, ow, y);
    if (ow + 4 <= s.cols.out) DirectBlock<4, NV>(s, x, wp, oh, ow, y), ow += 4;
    if (ow + 2 <= s.cols.out) DirectBlock<2, NV>(s, x, wp, oh, ow, y), ow += 2;
    if (ow < s.cols.out) DirectBlock<1, NV>(s, x, wp, oh, ow, y);
  }
}

// Where the windows of `s` reach past x's columns (one image), copies x into `scratch` with zero
// columns on either side, sets s->cols.in to the padded width and s->cols.pad_before to 0, and
// returns the copy (so that the inner loops need no bounds checks); else returns x.
inline const float* PadColumns(const float* x, Conv2DShape* s, std::vector<float>* scratch) {
  const int64_t pad = s->cols.pad_before, depth = s->in_depth, cols = s->cols.in;
  const int64_t reach =
      (s->cols.out - 1) * s->cols.stride + (s->cols.window - 1) * s->cols.dilation + 1;
  if (pad == 0 && reach <= cols) return x;
  s->cols.in = std::max(cols + pad, reach), s->cols.pad_before = 0;
  scratch->assign(s->rows.in * s->cols.in * depth, 0.0f);
  for (int64_t r = 0; r < s->rows.in; ++r)
    std::copy_n(x + r * cols * depth, cols * depth,
                scratch->data() + (r * s->cols.in + pad) * depth);
  return scratch->data();
}

// cp[r] += sum_i a[r][i * lda] * bp[i] for r < R (NV vectors each), i < rows.
template <int R, int NV>
void RowsTNGather(int64_t rows, const float* const* a, int64_t lda, const V8* bp, V8* cp) {
  V8 acc[R][NV];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = cp[r * NV + v];
  for (int64_t i = 0; i < rows; ++i) {
    V8 b[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) b[v] = bp[i * NV + v];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V8 x = Splat(a[r][i * lda]);
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) acc[r][v] += x * b[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < NV; ++v) cp[r * NV + v] = acc[r][v];
}

// cp ([PatchSize(s), NV] vectors) += the filter gradient of one image: x ([rows, cols, depth],
// columns padded: s.cols.pad_before == 0 and every window in bounds), gp (out_backprop padded
// to [out_rows * out_cols, NV] vectors), `zero` (s.cols.in * depth zeros, read for the rows
// that fall into the padding).
template <int NV>
void FilterGradImage(const Conv2DShape& s, const float* x, const V8* gp, const float* zero,
                     V8* cp) {
  constexpr int R = NV == 1 ? 8 : 6;
  const int64_t depth = s.in_depth, row_k = s.cols.window * depth, k = s.rows.window * row_k;
  const int64_t lda = s.cols.stride * depth;
  std::vector<int64_t> kh_of(k), offset(k);  // patch value j = (kh, kw, c): kh, input offset
  for (int64_t j = 0; j < k; ++j)
    kh_of[j] = j / row_k, offset[j] = (j % row_k) / depth * s.cols.dilation * depth + j % depth;
  std::vector<const float*> a(k);
  for (int64_t oh = 0; oh < s.rows.out; ++oh) {
    const V8* b = gp + oh * s.cols.out * NV;
    for (int64_t j = 0; j < k; ++j) {
      const int64_t ih = oh * s.rows.stride - s.rows.pad_before + kh_of[j] * s.rows.dilation;
      a[j] = (ih < 0 || ih >= s.rows.in ? zero : x + ih * s.cols.in * depth) + offset[j];
    }
    int64_t j = 0;
    for (; j + R <= k; j += R) RowsTNGather<R, NV>(s.cols.out, &a[j], lda, b, cp + j * NV);
    for (; j + 4 <= k; j += 4) RowsTNGather<4, NV>(s.cols.out, &a[j], lda, b, cp + j * NV);
    for (; j < k; ++j) RowsTNGather<1, NV>(s.cols.out, &a[j], lda, b, cp + j * NV);
  }
}

}  // namespace narrow_internal

// The filter ([PatchSize(s), out_depth] row-major) padded to whole vectors per patch value, as
// NarrowConv2DImage reads it; out_depth must be in [1, kNarrowGemmMaxN].
class NarrowConvFilter {
 public:
  NarrowConvFilter(const Conv2DShape& s, const float* w)
      : nv_(s.out_depth <= 8 ? 1 : 2),
        packed_(s.rows.window * s.cols.window * s.in_depth * nv_) {
    float* p = reinterpret_cast<float*>(packed_.data());
    const int64_t n = s.out_depth, k = s.rows.window * s.cols.window * s.in_depth;
    for (int64_t i = 0; i < k; ++i)
      for (int64_t j = 0; j < n; ++j) p[i * nv_ * 8 + j] = w[i * n + j];
  }
  // y ([out_rows, out_cols, out_depth]) = the convolution of one image x ([rows, cols,
  // in_depth]). Where windows reach past the input's columns, x is first copied into `scratch`
  // with zero columns on either side, so that the inner loops need no bounds checks.
  void ConvolveImage(const Conv2DShape& s, const float* x, float* y,
                     std::vector<float>* scratch) const {
    Conv2DShape p = s;
    x = narrow_internal::PadColumns(x, &p, scratch);
    if (nv_ == 1) narrow_internal::DirectImage<1>(p, x, packed_.data(), y);
    else narrow_internal::DirectImage<2>(p, x, packed_.data(), y);
  }

 private:
  int nv_;
  std::vector<narrow_internal::V8> packed_;  // value-initialized: zeros past out_depth
};

// out ([PatchSize(s), out_depth] row-major) = the filter gradient of the convolution `s` summed
// over images [begin, end) of x (NHWC input) and g (NHWC out_backprop), read in place (no
// im2col); out_depth must be in [1, kNarrowGemmMaxN].
template <int NV>
void NarrowFilterGradient(const Conv2DShape& s, const float* x, const float* g, int64_t begin,
                          int64_t end, float* out) {
  using narrow_internal::V8;
  const int64_t k = s.rows.window * s.cols.window * s.in_depth, n = s.out_depth;
  const int64_t in_image = s.rows.in * s.cols.in * s.in_depth;
  const int64_t positions = s.rows.out * s.cols.out;
  std::vector<V8> cp(k * NV), gp(positions * NV);  // zeros
  std::vector<float> scratch;
  Conv2DShape p = s;
  narrow_internal::PadColumns(x, &p, &scratch);  // p: the padded geometry (same per image)
  const std::vector<float> zero(p.cols.in * s.in_depth, 0.0f);
  for (int64_t img = begin; img < end; ++img) {
    Conv2DShape q = s;
    const float* xi = narrow_internal::PadColumns(x + img * in_image, &q, &scratch);
    float* gf = reinterpret_cast<float*>(gp.data());
    for (int64_t i = 0; i < positions; ++i)
      std::copy_n(g + (img * positions + i) * n, n, gf + i * NV * 8);
    narrow_internal::FilterGradImage<NV>(q, xi, gp.data(), zero.data(), cp.data());
  }
  const float* cf = reinterpret_cast<const float*>(cp.data());
  for (int64_t i = 0; i < k; ++i) std::copy_n(cf + i * NV * 8, n, out + i * n);
}

inline void NarrowFilterGradient(const Conv2DShape& s, const float* x, const float* g,
                                 int64_t begin, int64_t end, float* out) {
  if (s.out_depth <= 8) NarrowFilterGradient<1>(s, x, g, begin, end, out);
  else NarrowFilterGradient<2>(s, x, g, begin, end, out);
}

// Conv2DBackpropInput of a unit-stride convolution `s` as a forward convolution of
// out_backprop ([batch, out_rows, out_cols, out_depth]) with the filter of TransposedFilter,
// whose output is the input gradient; nullopt unless both strides are 1 and a filter row spans
// at most kNarrowBackpropInputRun input values (col2im's runs shorter than one vector, where
// GEMM + col2im lost to this: LeNet conv1 at batch 64, 1 channel, 1.6 vs 2.0 ms; at conv2's 6
// channels, runs of 30, GEMM + col2im won, 0.6 vs 1.0 ms).
inline constexpr int64_t kNarrowBackpropInputRun = 8;
inline std::optional<Conv2DShape> BackpropInputAsConv(const Conv2DShape& s) {
  if (s.rows.stride != 1 || s.cols.stride != 1) return std::nullopt;
  if (s.in_depth < 1 || s.in_depth * s.cols.window > kNarrowBackpropInputRun) return std::nullopt;
  Conv2DShape t;
  t.batch = s.batch, t.in_depth = s.out_depth, t.out_depth = s.in_depth;
  for (auto [td, sd] : {std::pair{&t.rows, &s.rows}, std::pair{&t.cols, &s.cols}}) {
    // dx[i] = sum_k dy[i + pad - k * dil] = sum_k' dy[i - pad' + k' * dil], k' = window - 1 - k.
    td->in = sd->out, td->out = sd->in, td->window = sd->window, td->dilation = sd->dilation;
    td->stride = 1, td->pad_before = (sd->window - 1) * sd->dilation - sd->pad_before;
    if (td->pad_before < 0) return std::nullopt;
  }
  return t;
}

// The HWIO filter of BackpropInputAsConv(s) from the filter w of `s`: flipped in both spatial
// dims, input and output channels swapped.
inline std::vector<float> TransposedFilter(const Conv2DShape& s, const float* w) {
  const int64_t kh_n = s.rows.window, kw_n = s.cols.window;
  const int64_t cin = s.in_depth, cout = s.out_depth;
  std::vector<float> t(kh_n * kw_n * cin * cout);
  for (int64_t kh = 0; kh < kh_n; ++kh)
    for (int64_t kw = 0; kw < kw_n; ++kw) {
      const float* src = w + (kh * kw_n + kw) * cin * cout;
      float* dst = t.data() + ((kh_n - 1 - kh) * kw_n + (kw_n - 1 - kw)) * cout * cin;
      for (int64_t c = 0; c < cin; ++c)
        for (int64_t o = 0; o < cout; ++o) dst[o * cin + c] = src[c * cout + o];
    }
  return t;
}

}  // namespace fb::nn
