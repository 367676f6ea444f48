// CPU Conv2DBackpropInput and Conv2DBackpropFilter (engine/ops/nn_ops_conv.cc), the adjoints of
// the im2col + GEMM forward (conv_kernels.cc):
//   input gradient:  patch gradients = out_backprop x filter^T, then col2im per image;
//   filter gradient: filter gradient = sum over chunks of patches^T x out_backprop.
// Chunks of images run in parallel (conv_kernels.h).
#include "kernels/cpu/conv_kernels.h"

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
    if (nn::PatchesAreInput(s)) {
      nn::Gemm(false, true, s.batch * patches, k, cout, T(1), g, cout, w, cout, T(0), dx, k);
      return;
    }
    if (k == 0 || patches == 0) {
      out->flat<T>().setZero();
      return;
    }
    const int64_t image = s.rows.in * s.cols.in * s.in_depth;
    nn::ParallelChunks<T>(ctx, s, [&](int64_t, int64_t n0, int64_t count, T* cols) {
      nn::Gemm(false, true, count * patches, k, cout, T(1), g + n0 * patches * cout, cout, w,
               cout, T(0), cols, k);
      std::fill_n(dx + n0 * image, count * image, T(0));  // zeroed per chunk, in parallel
      for (int64_t i = 0; i < count; ++i) nn::Col2Im(s, cols + i * patches * k, dx + (n0 + i) * image);
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
    if (nn::PatchesAreInput(s)) {
      nn::Gemm(true, false, k, cout, s.batch * patches, T(1), x, k, g, cout, T(0), dw, cout);
      return;
    }
    // One partial filter gradient per chunk, summed in chunk order: the result does not depend
    // on how chunks were spread over threads.
    const int64_t filter_size = k * cout;
    const int64_t chunks = nn::NumChunks(s.batch, nn::ImagesPerChunk<T>(s));
    std::vector<T> partial(chunks * filter_size);
    nn::ParallelChunks<T>(ctx, s, [&](int64_t c, int64_t n0, int64_t count, T* cols) {
      nn::Im2ColChunk(s, x, n0, count, cols);
      nn::Gemm(true, false, k, cout, count * patches, T(1), cols, k, g + n0 * patches * cout,
               cout, T(0), partial.data() + c * filter_size, cout);
    });
    std::copy_n(partial.data(), filter_size, dw);
    for (int64_t c = 1; c < chunks; ++c) {
      const T* p = partial.data() + c * filter_size;
      for (int64_t i = 0; i < filter_size; ++i) dw[i] += p[i];
    }
  }
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("Conv2DBackpropInput", Conv2DBackpropInputOp);
FB_REGISTER_FLOAT_KERNELS("Conv2DBackpropFilter", Conv2DBackpropFilterOp);

}  // namespace fb
