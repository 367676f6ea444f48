#pragma once
// Shared pieces of the CPU Conv2D kernels (conv_kernels.cc: forward, conv_backprop_kernels.cc:
// input and filter gradients). All three are im2col + GEMM (kernels/cpu/im2col.h) over blocks of
// the batch's patch matrix (PartitionPatches: several small images, or a band of output rows of
// one large image, about kBlockPatchBytes each, so a block's patches stay near in cache between
// im2col writing them and the GEMM reading them). Blocks run in parallel on the intra-op pool,
// each as im2col (or col2im) and one OpenBLAS GEMM on the calling thread: with OpenBLAS at one
// thread (`--blas-threads 1`, the default of `flowbench train`) the pool's threads are the only
// ones, so the two do not oversubscribe the cores. A 1x1 filter with unit strides and no padding
// reads the input (and writes the input gradient) as the patch matrix itself.
#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "kernels/cpu/im2col.h"
#include "kernels/cpu/narrow_gemm.h"
#include "kernels/cpu/nn_kernel_util.h"

namespace fb::nn {

// Target size of one block's patch matrix, in bytes: about a core's L2 cache (2 MiB here), so that
// im2col's writes are still near when the GEMM reads them, while the GEMM gets enough rows to
// amortize packing the filter (which OpenBLAS repacks on every call).
inline constexpr int64_t kBlockPatchBytes = int64_t{2} << 20;
// Fewest patch rows (GEMM rows) per block, whatever their bytes: smaller GEMMs run well below
// OpenBLAS's peak (AlexNet conv3, 13x13 outputs: bands of 7 rows ran at 2/3 the speed of whole
// 169-row images, and blocks of 1014 rows beat single images at conv4 on a quiet machine).
inline constexpr int64_t kMinBlockPatches = 512;
// Fewest blocks a batch of small images is split into (when it has that many images): enough for
// two threads to share evenly.
inline constexpr int64_t kMinBlocks = 4;
// Number of partial filter gradients Conv2DBackpropFilter sums (at most): a constant, so that
// the summation order depends on the shapes only, not on the number of threads.
inline constexpr int64_t kFilterPartials = 4;

// Parses the conv attrs (strides, padding, dilations, data_format) once per kernel.
class ConvKernelBase : public OpKernel {
 public:
  explicit ConvKernelBase(OpKernelConstruction* c) : OpKernel(c) {
    auto attrs = ParseWindow2DAttrs(c->def().attrs, /*pooling=*/false);
    if (attrs.ok()) attrs_ = *attrs;
    else c->SetStatus(attrs.status());
  }

 protected:
  // The geometry of a Conv2D with these input and filter dims (errors as ComputeConv2DShape).
  StatusOr<Conv2DShape> Shape(const std::vector<int64_t>& input,
                              const std::vector<int64_t>& filter) const {
    for (int64_t d : input)
      if (d < 0) return InvalidArgument("input sizes must be non-negative, got ", DimsString(input));
    for (int64_t d : filter)
      if (d < 0)
        return InvalidArgument("filter sizes must be non-negative, got ", DimsString(filter));
    return ComputeConv2DShape(input, filter, attrs_);
  }
  Window2DAttrs attrs_;
};

// Conv2D's output y [batch, out_rows, out_cols, out_depth] (NHWC) of input x (NHWC) and filter w
// (HWIO) with geometry `s`, on the intra-op pool of ctx (im2col + GEMM, or the direct narrow
// convolution for float layers of few filters). Zeros when the patch size is 0. Used by Conv2D
// and _FusedConv2D (fused_conv_kernels.cc). T = float, double.
template <typename T>
void Conv2DForward(OpKernelContext* ctx, const Conv2DShape& s, const T* x, const T* w, T* y);

// The dims held by an int32 sizes input (input_sizes / filter_sizes): InvalidArgument unless it
// is a vector of 4 entries.
inline StatusOr<std::vector<int64_t>> SizesFromTensor(const Tensor& t, const char* name) {
  if (t.dims() != 1 || t.NumElements() != 4)
    return InvalidArgument(name, " must be a vector of 4 sizes, got shape ",
                           t.shape().DebugString());
  const int32_t* v = t.data<int32_t>();
  return std::vector<int64_t>(v, v + 4);
}

// InvalidArgument unless out_backprop has the forward output's shape.
inline Status CheckOutBackprop(const Conv2DShape& s, const Tensor& out_backprop) {
  std::vector<int64_t> want = s.OutputDims();
  if (out_backprop.shape().dim_sizes() == want) return Status::OK();
  return InvalidArgument("out_backprop has shape ", out_backprop.shape().DebugString(),
                         " but Conv2D of input ", DimsString(s.InputDims()), " and filter ",
                         DimsString(s.FilterDims()), " produces ", DimsString(want));
}

// A partition of the batch's patch matrix [batch * out_rows * out_cols, PatchSize(s)] (one row
// per output position, images in order) into blocks of consecutive rows whose patch matrices are
// about kBlockPatchBytes: whole images per block when an image's patch matrix is smaller than
// that, else blocks of output rows of one image; at least kMinBlockPatches rows per block where
// an image has that many. Depends on the shapes only.
struct PatchBlocks {
  int64_t images_per_block = 1;  // > 1 only when rows_per_block == out_rows
  int64_t rows_per_block = 1;    // output rows per block (out_rows: whole images)
  int64_t blocks_per_image = 1;  // ceil(out_rows / rows_per_block) when images are split
  int64_t num_blocks = 0;
  int64_t max_patches = 0;  // patch rows in the largest block
  bool SplitsImages() const { return blocks_per_image > 1; }
};

// One block: output rows [row_begin, row_end) of images [image, image + images); its patch rows
// are [first_patch, first_patch + num_patches) of the batch's patch matrix.
struct PatchBlock {
  int64_t image, images, row_begin, row_end, first_patch, num_patches;
};

template <typename T>
PatchBlocks PartitionPatches(const Conv2DShape& s) {
  PatchBlocks p;
  const int64_t cols = std::max<int64_t>(1, s.cols.out);
  const int64_t target_patches = std::max<int64_t>(
      kMinBlockPatches, kBlockPatchBytes / std::max<int64_t>(1, PatchSize(s) * sizeof(T)));
  const int64_t image_patches = std::max<int64_t>(1, PatchesPerImage(s));
  if (image_patches <= target_patches || s.rows.out <= 1) {
    // At least kMinBlocks blocks where the batch allows (work for every core), and blocks of
    // equal size: 16 images in blocks of at most 5 become 4 x 4, not 5 + 5 + 5 + 1.
    const int64_t batch = std::max<int64_t>(1, s.batch);
    const int64_t most = std::min(target_patches / image_patches,
                                  (batch + kMinBlocks - 1) / kMinBlocks);
    p.num_blocks = (batch + std::max<int64_t>(1, most) - 1) / std::max<int64_t>(1, most);
    p.images_per_block = (batch + p.num_blocks - 1) / p.num_blocks;
    p.num_blocks = (batch + p.images_per_block - 1) / p.images_per_block;
    p.rows_per_block = s.rows.out;
    p.max_patches = p.images_per_block * PatchesPerImage(s);
    return p;
  }
  // Balanced: e.g. 13 rows in blocks of at most 11 become 7 + 6, not 11 + 2.
  const int64_t max_rows = std::clamp<int64_t>(target_patches / cols, 1, s.rows.out);
  p.blocks_per_image = (s.rows.out + max_rows - 1) / max_rows;
  p.rows_per_block = (s.rows.out + p.blocks_per_image - 1) / p.blocks_per_image;
  p.blocks_per_image = (s.rows.out + p.rows_per_block - 1) / p.rows_per_block;
  p.num_blocks = s.batch * p.blocks_per_image;
  p.max_patches = p.rows_per_block * s.cols.out;
  return p;
}

inline PatchBlock BlockAt(const Conv2DShape& s, const PatchBlocks& p, int64_t b) {
  PatchBlock k;
  if (!p.SplitsImages()) {
    k.image = b * p.images_per_block;
    k.images = std::min(p.images_per_block, s.batch - k.image);
    k.row_begin = 0, k.row_end = s.rows.out;
  } else {
    k.image = b / p.blocks_per_image, k.images = 1;
    k.row_begin = (b % p.blocks_per_image) * p.rows_per_block;
    k.row_end = std::min(s.rows.out, k.row_begin + p.rows_per_block);
  }
  k.first_patch = (k.image * s.rows.out + k.row_begin) * s.cols.out;
  k.num_patches = k.images * (k.row_end - k.row_begin) * s.cols.out;
  return k;
}

// Runs fn(begin, end, scratch) over units [0, units) on the intra-op pool, where `scratch` has
// room for one block's patch matrix (reused across the units of a shard); `block_cost` is the
// work of one unit in multiply-adds.
template <typename T, typename Fn>
void ShardWithScratch(OpKernelContext* ctx, const Conv2DShape& s, const PatchBlocks& p,
                      int64_t units, int64_t unit_macs, Fn fn) {
  const int64_t scratch = PatchesAreInput(s) ? 0 : p.max_patches * PatchSize(s);
  // About four multiply-adds per ns (a single-threaded OpenBLAS SGEMM does 30-50 GFLOP/s here).
  Shard(ctx, units, std::max<int64_t>(1, unit_macs / 4), [&](int64_t begin, int64_t end) {
    std::unique_ptr<T[]> patches(scratch > 0 ? new T[scratch] : nullptr);
    fn(begin, end, patches.get());
  });
}

// c[m, n] = a[m, k] x b[k, n] (dense row-major): the narrow-output kernel (narrow_gemm.h) for
// float products of at most kNarrowGemmMaxN columns (few filters), else OpenBLAS.
template <typename T>
void ConvGemmNN(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    if (n <= kNarrowGemmMaxN) return NarrowGemmNN(m, n, k, a, k, b, n, c, n);
  }
  Gemm(false, false, m, n, k, T(1), a, k, b, n, T(0), c, n);
}

// c[k, n] = a[m, k]^T x b[m, n] + beta * c (dense row-major), the same choice of kernel.
template <typename T>
void ConvGemmTN(int64_t m, int64_t n, int64_t k, const T* a, const T* b, T beta, T* c) {
  if constexpr (std::is_same_v<T, float>) {
    if (n <= kNarrowGemmMaxN) return NarrowGemmTN(m, n, k, a, k, b, n, beta, c, n);
  }
  Gemm(true, false, k, n, m, T(1), a, k, b, n, beta, c, n);
}

// The patch matrix of block `k` of `input` (NHWC): `input` itself when the patches are the input
// (a 1x1 unit-stride unpadded filter), else written into `scratch` by im2col.
template <typename T>
const T* BlockPatches(const Conv2DShape& s, const PatchBlock& k, const T* input, T* scratch) {
  const int64_t kk = PatchSize(s);
  if (PatchesAreInput(s)) return input + k.first_patch * kk;
  const int64_t image = s.rows.in * s.cols.in * s.in_depth;
  const int64_t rows = (k.row_end - k.row_begin) * s.cols.out;
  for (int64_t i = 0; i < k.images; ++i)
    Im2Col(s, input + (k.image + i) * image, k.row_begin, k.row_end, scratch + i * rows * kk);
  return scratch;
}

}  // namespace fb::nn
