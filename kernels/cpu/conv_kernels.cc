// CPU Conv2D (engine/ops/nn_ops_conv.cc): im2col + GEMM, output[block] = patches x filter where
// the HWIO filter is read as a row-major [filter_rows * filter_cols * in_depth, out_depth]
// matrix and the product [block's output positions, out_depth] is that block's slice of the NHWC
// output. Blocks (conv_kernels.h) run in parallel; a 1x1 unit-stride filter skips im2col. Float
// layers of at most kNarrowGemmMaxN filters convolve directly (narrow_conv.h), without im2col.
#include "kernels/cpu/conv_kernels.h"
#include "kernels/cpu/narrow_conv.h"

namespace fb {
namespace {

// Few filters: a direct convolution per image (narrow_conv.h), images in parallel.
void DirectNarrow(OpKernelContext* ctx, const Conv2DShape& s, const float* x, const float* w,
                  float* y) {
  const nn::NarrowConvFilter filter(s, w);
  const int64_t in_image = s.rows.in * s.cols.in * s.in_depth;
  const int64_t out_image = nn::PatchesPerImage(s) * s.out_depth;
  nn::Shard(ctx, s.batch, std::max<int64_t>(1, out_image * nn::PatchSize(s) / 4),
            [&](int64_t begin, int64_t end) {
              std::vector<float> scratch;
              for (int64_t n = begin; n < end; ++n)
                filter.ConvolveImage(s, x + n * in_image, y + n * out_image, &scratch);
            });
}

template <typename T>
class Conv2DOp : public nn::ConvKernelBase {
 public:
  using ConvKernelBase::ConvKernelBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    auto shape = Shape(input.shape().dim_sizes(), filter.shape().dim_sizes());
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(s.OutputDims()), &out));
    if (out->NumElements() == 0) return;
    nn::Conv2DForward<T>(ctx, s, input.data<T>(), filter.data<T>(), out->data<T>());
  }
};

}  // namespace

namespace nn {

template <typename T>
void Conv2DForward(OpKernelContext* ctx, const Conv2DShape& s, const T* x, const T* w, T* y) {
  const int64_t k = PatchSize(s);
  if (k == 0) {
    std::fill_n(y, s.batch * s.rows.out * s.cols.out * s.out_depth, T(0));
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (s.out_depth <= kNarrowGemmMaxN && !PatchesAreInput(s)) return DirectNarrow(ctx, s, x, w, y);
  }
  const PatchBlocks p = PartitionPatches<T>(s);
  ShardWithScratch<T>(ctx, s, p, p.num_blocks, p.max_patches * k * s.out_depth,
                      [&](int64_t begin, int64_t end, T* scratch) {
                        for (int64_t b = begin; b < end; ++b) {
                          const PatchBlock blk = BlockAt(s, p, b);
                          const T* cols = BlockPatches(s, blk, x, scratch);
                          ConvGemmNN(blk.num_patches, s.out_depth, k, cols, w,
                                     y + blk.first_patch * s.out_depth);
                        }
                      });
}

template void Conv2DForward<float>(OpKernelContext*, const Conv2DShape&, const float*,
                                   const float*, float*);
template void Conv2DForward<double>(OpKernelContext*, const Conv2DShape&, const double*,
                                    const double*, double*);

}  // namespace nn

FB_REGISTER_FLOAT_KERNELS("Conv2D", Conv2DOp);

}  // namespace fb
