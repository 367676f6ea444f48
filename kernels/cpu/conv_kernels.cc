// CPU Conv2D (engine/ops/nn_ops_conv.cc): im2col + GEMM, output[block] = patches x filter where
// the HWIO filter is read as a row-major [filter_rows * filter_cols * in_depth, out_depth]
// matrix and the product [block's output positions, out_depth] is that block's slice of the NHWC
// output. Blocks (conv_kernels.h) run in parallel; a 1x1 unit-stride filter skips im2col.
#include "kernels/cpu/conv_kernels.h"

namespace fb {
namespace {

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
    const int64_t k = nn::PatchSize(s);
    if (k == 0) {
      out->flat<T>().setZero();
      return;
    }
    const T* x = input.data<T>();
    const T* w = filter.data<T>();
    T* y = out->data<T>();
    const nn::PatchBlocks p = nn::PartitionPatches<T>(s);
    nn::ShardWithScratch<T>(
        ctx, s, p, p.num_blocks, p.max_patches * k * s.out_depth,
        [&](int64_t begin, int64_t end, T* scratch) {
          for (int64_t b = begin; b < end; ++b) {
            const nn::PatchBlock blk = nn::BlockAt(s, p, b);
            const T* cols = nn::BlockPatches(s, blk, x, scratch);
            nn::Gemm(false, false, blk.num_patches, s.out_depth, k, T(1), cols, k, w,
                     s.out_depth, T(0), y + blk.first_patch * s.out_depth, s.out_depth);
          }
        });
  }
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("Conv2D", Conv2DOp);

}  // namespace fb
