// CPU Conv2D (engine/ops/nn_ops_conv.cc): im2col + GEMM, output[chunk] = patches x filter where
// the HWIO filter is read as a row-major [filter_rows * filter_cols * in_depth, out_depth]
// matrix and the product [images * out_rows * out_cols, out_depth] is the NHWC output.
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
    const int64_t k = nn::PatchSize(s), patches = nn::PatchesPerImage(s);
    if (k == 0) {
      out->flat<T>().setZero();
      return;
    }
    const T* x = input.data<T>();
    const T* w = filter.data<T>();
    T* y = out->data<T>();
    if (nn::PatchesAreInput(s)) {
      nn::Gemm(false, false, s.batch * patches, s.out_depth, k, T(1), x, k, w, s.out_depth, T(0),
               y, s.out_depth);
      return;
    }
    nn::ParallelChunks<T>(ctx, s, [&](int64_t, int64_t n0, int64_t count, T* cols) {
      nn::Im2ColChunk(s, x, n0, count, cols);
      nn::Gemm(false, false, count * patches, s.out_depth, k, T(1), cols, k, w, s.out_depth,
               T(0), y + n0 * patches * s.out_depth, s.out_depth);
    });
  }
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("Conv2D", Conv2DOp);

}  // namespace fb
