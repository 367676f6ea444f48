// CPU Conv2DBackpropInput and Conv2DBackpropFilter (engine/ops/nn_ops_conv.cc), the adjoints of
// the im2col + GEMM forward (conv_kernels.cc):
//   input gradient:  patch gradients = out_backprop x filter^T, then col2im per image;
//   filter gradient: filter gradient = sum over chunks of patches^T x out_backprop.
// Blocks of patch rows run in parallel (conv_kernels.h); 1x1 unit-stride filters use the input
// (and input gradient) as the patch matrix directly, without im2col or col2im. Float kernels
// with few channels (narrow_conv.h, narrow_gemm.h): a unit-stride convolution whose filter rows
// span few input values (kNarrowBackpropInputRun, e.g. a greyscale input) gets its input
// gradient as a direct convolution of out_backprop with the flipped, transposed filter; a
// filter gradient of at most kNarrowGemmMaxN filters is summed in place from the input and
// out_backprop (NarrowFilterGradient).
#include "kernels/cpu/conv_kernels.h"
#include "kernels/cpu/narrow_conv.h"

namespace fb {
namespace {

template <typename T>
class Conv2DBackpropInputOp : public nn::ConvKernelBase {
 public:
  using ConvKernelBase::ConvKernelBase;
  void Compute(OpKernelContext* ctx) override {
    auto sizes = nn::SizesFromTensor(ctx->input(0), "input_sizes");
    OP_REQUIRES_OK(ctx, sizes.status());
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    auto shape = Shape(*sizes, filter.shape().dim_sizes());
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    OP_REQUIRES_OK(ctx, nn::CheckOutBackprop(s, dy));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(*sizes), &out));
    if (out->NumElements() == 0) return;
    const int64_t k = nn::PatchSize(s), patches = nn::PatchesPerImage(s), cout = s.out_depth;
    const T* w = filter.data<T>();
    const T* g = dy.data<T>();
    T* dx = out->data<T>();
    if (k == 0 || patches == 0) {
      out->flat<T>().setZero();
      return;
    }
    if constexpr (std::is_same_v<T, float>) {
      if (!nn::PatchesAreInput(s)) {
        if (auto t = nn::BackpropInputAsConv(s)) return DirectNarrow(ctx, *t, s, w, g, dx);
      }
    }
    // Col2im of two blocks of one image adds into overlapping input rows, so when images are
    // split into blocks, one unit of parallel work is a whole image.
    const nn::PatchBlocks p = nn::PartitionPatches<T>(s);
    const bool direct = nn::PatchesAreInput(s);
    const int64_t per_unit = p.SplitsImages() && !direct ? p.blocks_per_image : 1;
    const int64_t image = s.rows.in * s.cols.in * s.in_depth;
    nn::ShardWithScratch<T>(
        ctx, s, p, p.num_blocks / per_unit, per_unit * p.max_patches * k * cout,
        [&](int64_t begin, int64_t end, T* cols) {
          for (int64_t b = begin * per_unit; b < end * per_unit; ++b) {
            const nn::PatchBlock blk = nn::BlockAt(s, p, b);
            const T* g_blk = g + blk.first_patch * cout;
            if (direct) {  // the patch gradients are the input gradient
              nn::Gemm(false, true, blk.num_patches, k, cout, T(1), g_blk, cout, w, cout, T(0),
                       dx + blk.first_patch * k, k);
              continue;
            }
            nn::Gemm(false, true, blk.num_patches, k, cout, T(1), g_blk, cout, w, cout, T(0),
                     cols, k);
            // An image's first block zeroes it (cache-warm, and in parallel).
            if (blk.row_begin == 0) std::fill_n(dx + blk.image * image, blk.images * image, T(0));
            const int64_t rows = (blk.row_end - blk.row_begin) * s.cols.out;
            for (int64_t i = 0; i < blk.images; ++i)
              nn::Col2Im(s, cols + i * rows * k, blk.row_begin, blk.row_end,
                         dx + (blk.image + i) * image);
          }
        });
  }

 private:
  // A unit-stride convolution with few input channels: the input gradient is the forward
  // convolution `t` of out_backprop with the transposed filter (narrow_conv.h), per image.
  static void DirectNarrow(OpKernelContext* ctx, const Conv2DShape& t, const Conv2DShape& s,
                           const float* w, const float* g, float* dx) {
    const std::vector<float> wt = nn::TransposedFilter(s, w);
    const nn::NarrowConvFilter filter(t, wt.data());
    const int64_t in_image = t.rows.in * t.cols.in * t.in_depth;
    const int64_t out_image = t.rows.out * t.cols.out * t.out_depth;
    nn::Shard(ctx, t.batch, std::max<int64_t>(1, out_image * nn::PatchSize(t) / 4),
              [&](int64_t begin, int64_t end) {
                std::vector<float> scratch;
                for (int64_t n = begin; n < end; ++n)
                  filter.ConvolveImage(t, g + n * in_image, dx + n * out_image, &scratch);
              });
  }
};

template <typename T>
class Conv2DBackpropFilterOp : public nn::ConvKernelBase {
 public:
  using ConvKernelBase::ConvKernelBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    auto sizes = nn::SizesFromTensor(ctx->input(1), "filter_sizes");
    OP_REQUIRES_OK(ctx, sizes.status());
    const Tensor& dy = ctx->input(2);
    auto shape = Shape(input.shape().dim_sizes(), *sizes);
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    OP_REQUIRES_OK(ctx, nn::CheckOutBackprop(s, dy));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(*sizes), &out));
    if (out->NumElements() == 0) return;
    const int64_t k = nn::PatchSize(s), patches = nn::PatchesPerImage(s), cout = s.out_depth;
    const T* x = input.data<T>();
    const T* g = dy.data<T>();
    T* dw = out->data<T>();
    if (s.batch * patches == 0) {
      out->flat<T>().setZero();
      return;
    }
    // The patch rows are split into at most kFilterPartials consecutive groups; each group
    // accumulates its patches^T x out_backprop into its own partial (group 0 into dw), and the
    // partials are added in group order: the result does not depend on the number of threads.
    // A group is whole blocks (im2col), or with a 1x1 unit-stride filter one GEMM over its rows
    // of the input.
    const nn::PatchBlocks p = nn::PartitionPatches<T>(s);
    const bool direct = nn::PatchesAreInput(s);
    if constexpr (std::is_same_v<T, float>) {
      if (!direct && cout <= nn::kNarrowGemmMaxN) return NarrowFilter(ctx, s, x, g, dw);
    }
    const int64_t rows = s.batch * patches;
    const int64_t groups = std::min(direct ? rows : p.num_blocks, nn::kFilterPartials);
    const int64_t filter_size = k * cout;
    std::vector<T> partial((groups - 1) * filter_size);
    nn::ShardWithScratch<T>(ctx, s, p, groups, rows / groups * k * cout,
                            [&](int64_t begin, int64_t end, T* scratch) {
      for (int64_t j = begin; j < end; ++j) {
        T* acc = j == 0 ? dw : partial.data() + (j - 1) * filter_size;
        if (direct) {
          const int64_t r0 = j * rows / groups, r1 = (j + 1) * rows / groups;
          nn::ConvGemmTN(r1 - r0, cout, k, x + r0 * k, g + r0 * cout, T(0), acc);
          continue;
        }
        const int64_t b0 = j * p.num_blocks / groups, b1 = (j + 1) * p.num_blocks / groups;
        for (int64_t b = b0; b < b1; ++b) {
          const nn::PatchBlock blk = nn::BlockAt(s, p, b);
          const T* cols = nn::BlockPatches(s, blk, x, scratch);
          nn::ConvGemmTN(blk.num_patches, cout, k, cols, g + blk.first_patch * cout,
                         b == b0 ? T(0) : T(1), acc);
        }
      }
    });
    SumPartials(ctx, groups, filter_size, partial.data(), dw);
  }

 private:
  // dw += the (groups - 1) partials after it, in order.
  static void SumPartials(OpKernelContext* ctx, int64_t groups, int64_t filter_size,
                          const T* partial, T* dw) {
    nn::Shard(ctx, filter_size, groups, [&](int64_t begin, int64_t end) {
      for (int64_t j = 1; j < groups; ++j) {
        const T* src = partial + (j - 1) * filter_size;
        for (int64_t i = begin; i < end; ++i) dw[i] += src[i];
      }
    });
  }

  // Few filters: groups of images each summed in place by NarrowFilterGradient
  // (narrow_conv.h), at most kFilterPartials groups, added in group order.
  static void NarrowFilter(OpKernelContext* ctx, const Conv2DShape& s, const float* x,
                           const float* g, float* dw) {
    const int64_t groups = std::min(s.batch, nn::kFilterPartials);
    const int64_t filter_size = nn::PatchSize(s) * s.out_depth;
    std::vector<float> partial((groups - 1) * filter_size);
    const int64_t image_macs = nn::PatchesPerImage(s) * filter_size;
    nn::Shard(ctx, groups, std::max<int64_t>(1, s.batch / groups * image_macs / 4),
              [&](int64_t begin, int64_t end) {
                for (int64_t j = begin; j < end; ++j)
                  nn::NarrowFilterGradient(s, x, g, j * s.batch / groups,
                                           (j + 1) * s.batch / groups,
                                           j == 0 ? dw : partial.data() + (j - 1) * filter_size);
              });
    SumPartials(ctx, groups, filter_size, partial.data(), dw);
  }
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("Conv2DBackpropInput", Conv2DBackpropInputOp);
FB_REGISTER_FLOAT_KERNELS("Conv2DBackpropFilter", Conv2DBackpropFilterOp);

}  // namespace fb
