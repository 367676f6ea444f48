#pragma once
// Copy loops shared by the data-movement kernels (Slice, Pad, Split, Concat, Pack, Unpack).
// Tensors are dense row-major; T is any element type (std::copy assigns strings, moves bytes
// otherwise). Callers validate shapes first; these loops only FB_CHECK their invariants.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/framework/status.h"

namespace fb {

// Copies between a dense tensor `small` of dims `box` and the region [begin, begin + box) of a
// dense tensor `big` of dims `big_dims`: big -> small when `to_small` (Slice), else
// small -> big (Pad). Trailing dimensions the box covers fully are copied as one run.
template <typename T>
void CopyBox(T* big, const std::vector<int64_t>& big_dims, const std::vector<int64_t>& begin,
             T* small, const std::vector<int64_t>& box, bool to_small) {
  const int r = static_cast<int>(big_dims.size());
  FB_CHECK(static_cast<int>(box.size()) == r && static_cast<int>(begin.size()) == r);
  if (r == 0) {
    if (to_small) *small = *big; else *big = *small;
    return;
  }
  for (int64_t b : box)
    if (b == 0) return;
  // Dimensions after k are covered fully: rows of box[k] * inner contiguous elements.
  int k = r - 1;
  int64_t inner = 1;
  while (k > 0 && box[k] == big_dims[k]) inner *= big_dims[k--];
  std::vector<int64_t> stride(k + 1);
  stride[k] = inner;
  for (int i = k - 1; i >= 0; --i) stride[i] = stride[i + 1] * big_dims[i + 1];
  const int64_t row = box[k] * inner;
  std::vector<int64_t> idx(k, 0);  // position in box dims [0, k)
  for (T* s = small;; s += row) {
    int64_t offset = begin[k] * inner;
    for (int i = 0; i < k; ++i) offset += (begin[i] + idx[i]) * stride[i];
    if (to_small) std::copy(big + offset, big + offset + row, s);
    else std::copy(s, s + row, big + offset);
    int i = k - 1;
    while (i >= 0 && ++idx[i] == box[i]) idx[i--] = 0;
    if (i < 0) break;
  }
}

// A tensor viewed as [outer, sum(widths)] split column-wise into parts of [outer, widths[p]]
// (Concat and Pack along an axis: outer = product of the dims before it). Copies parts ->
// joined when `join`, else joined -> parts (Split, Unpack).
template <typename T>
void JoinColumns(T* joined, int64_t outer, const std::vector<T*>& parts,
                 const std::vector<int64_t>& widths, bool join) {
  FB_CHECK(parts.size() == widths.size());
  int64_t total = 0;
  for (int64_t w : widths) total += w;
  for (int64_t o = 0; o < outer; ++o) {
    T* row = joined + o * total;
    for (size_t p = 0; p < parts.size(); ++p) {
      T* part = parts[p] + o * widths[p];
      if (join) std::copy(part, part + widths[p], row);
      else std::copy(row, row + widths[p], part);
      row += widths[p];
    }
  }
}

// Product of dims [begin, end).
inline int64_t DimProduct(const std::vector<int64_t>& dims, int begin, int end) {
  int64_t n = 1;
  for (int i = begin; i < end; ++i) n *= dims[i];
  return n;
}

}  // namespace fb
