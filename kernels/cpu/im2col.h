#pragma once
// im2col / col2im for NHWC convolutions (Chellapilla et al. 2006, "High performance
// convolutional neural networks for document processing"): im2col lays out one image's input
// patches as a row-major matrix [out_rows * out_cols, filter_rows * filter_cols * in_depth]
// whose row p is the receptive field of output position p in (filter_row, filter_col, channel)
// order, i.e. the order of an HWIO filter reshaped to [filter_rows * filter_cols * in_depth,
// out_depth]. A convolution is then one GEMM: output = patches x filter. Padding positions are
// zeros. col2im is the adjoint: it adds each patch row back into the image (used by the input
// gradient). With unit column dilation, the in-bounds part of a filter row is one contiguous
// run of the input row, copied (or added) as a block.
#include <algorithm>
#include <cstring>

#include "engine/ops/nn_ops_common.h"

namespace fb::nn {

// Number of values in one patch row.
inline int64_t PatchSize(const Conv2DShape& s) {
  return s.rows.window * s.cols.window * s.in_depth;
}
// Number of patch rows (output positions) per image.
inline int64_t PatchesPerImage(const Conv2DShape& s) { return s.rows.out * s.cols.out; }

// Calls fn(patch_offset, image_offset, count) for every contiguous run of patch values that maps
// to in-bounds input values of one image, for the patch rows of output rows [oh_begin, oh_end)
// (offsets in elements, patch_offset into those rows' patch matrix, which starts at output row
// oh_begin), and zero_fn(patch_offset, count) for runs that fall into padding.
template <typename Fn, typename ZeroFn>
void ForEachPatchRun(const Conv2DShape& s, int64_t oh_begin, int64_t oh_end, Fn fn,
                     ZeroFn zero_fn) {
  const int64_t depth = s.in_depth, in_cols = s.cols.in, kw = s.cols.window;
  const int64_t dil_c = s.cols.dilation, row_len = kw * depth;
  int64_t p = 0;
  for (int64_t oh = oh_begin; oh < oh_end; ++oh) {
    for (int64_t ow = 0; ow < s.cols.out; ++ow) {
      const int64_t iw0 = ow * s.cols.stride - s.cols.pad_before;
      // Filter columns [c_lo, c_hi) land inside the input row.
      int64_t c_lo = 0, c_hi = kw;
      while (c_lo < kw && iw0 + c_lo * dil_c < 0) ++c_lo;
      while (c_hi > c_lo && iw0 + (c_hi - 1) * dil_c >= in_cols) --c_hi;
      for (int64_t kh = 0; kh < s.rows.window; ++kh, p += row_len) {
        const int64_t ih = oh * s.rows.stride - s.rows.pad_before + kh * s.rows.dilation;
        if (ih < 0 || ih >= s.rows.in || c_lo >= c_hi) {
          zero_fn(p, row_len);
          continue;
        }
        if (c_lo > 0) zero_fn(p, c_lo * depth);
        if (c_hi < kw) zero_fn(p + c_hi * depth, (kw - c_hi) * depth);
        const int64_t base = (ih * in_cols + iw0) * depth;
        if (dil_c == 1) {
          fn(p + c_lo * depth, base + c_lo * depth, (c_hi - c_lo) * depth);
        } else {
          for (int64_t c = c_lo; c < c_hi; ++c) fn(p + c * depth, base + c * dil_c * depth, depth);
        }
      }
    }
  }
}

// Writes the patch rows of output rows [oh_begin, oh_end) of one image (`image`: [rows, cols,
// in_depth]) into `patches` ([(oh_end - oh_begin) * out_cols, PatchSize(s)]).
template <typename T>
void Im2Col(const Conv2DShape& s, const T* image, int64_t oh_begin, int64_t oh_end, T* patches) {
  ForEachPatchRun(
      s, oh_begin, oh_end,
      [&](int64_t p, int64_t i, int64_t n) {
        // Short runs (a filter row of a shallow input, e.g. 5 values for a greyscale 5x5
        // filter) are cheaper as a plain loop than as a memcpy call.
        if (n <= 16) {
          for (int64_t k = 0; k < n; ++k) patches[p + k] = image[i + k];
        } else {
          std::memcpy(patches + p, image + i, n * sizeof(T));
        }
      },
      [&](int64_t p, int64_t n) { std::fill_n(patches + p, n, T(0)); });
}

// dst[i] += src[i] for i < n, in groups of 8 with a constant trip count so that the compiler
// vectorizes it at -O2 (a loop of runtime length it leaves scalar); dst and src do not overlap.
template <typename T>
void AddRun(T* __restrict dst, const T* __restrict src, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; ++l) dst[i + l] += src[i + l];
  for (; i < n; ++i) dst[i] += src[i];
}

// Adds the patch rows of output rows [oh_begin, oh_end) (laid out as Im2Col writes them) back
// into `image`, which the caller zeroes first. Row ranges of one image overlap in the image
// (neighbouring windows share input rows), so calls for one image must not run concurrently.
template <typename T>
void Col2Im(const Conv2DShape& s, const T* patches, int64_t oh_begin, int64_t oh_end, T* image) {
  ForEachPatchRun(
      s, oh_begin, oh_end,
      [&](int64_t p, int64_t i, int64_t n) { AddRun(image + i, patches + p, n); },
      [](int64_t, int64_t) {});
}

// True when the patch matrix of an image is the image itself ([rows * cols, in_depth]): a 1x1
// filter with unit strides and no padding.
inline bool PatchesAreInput(const Conv2DShape& s) {
  return s.rows.window == 1 && s.cols.window == 1 && s.rows.stride == 1 && s.cols.stride == 1 &&
         s.rows.pad_before == 0 && s.cols.pad_before == 0;
}

}  // namespace fb::nn
