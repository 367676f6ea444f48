// CPU _FusedConv2D (engine/ops/nn_ops_conv.cc, created by the fuse_conv_bias_relu pass): Conv2D
// (conv_kernels.h Conv2DForward) and then, in one sharded pass over the output, the bias and the
// Relu. The element operations are BiasAdd's and Relu's (activation_kernels.cc: x + b, then
// max(x, 0) with NaN propagated), so results equal the unfused ops' bit for bit.
#include "engine/ops/fused_conv_attrs.h"
#include "kernels/bias_shapes.h"
#include "kernels/cpu/conv_kernels.h"
#include "kernels/cpu/cwise_binary.h"

namespace fb {
namespace {

template <typename T>
class FusedConv2DOp : public nn::ConvKernelBase {
 public:
  explicit FusedConv2DOp(OpKernelConstruction* c) : ConvKernelBase(c) {
    auto relu = FusedConvAppliesRelu(c->def().attrs);
    if (relu.ok()) relu_ = *relu;
    else c->SetStatus(relu.status());
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    const Tensor& bias = ctx->input(2);
    auto shape = Shape(input.shape().dim_sizes(), filter.shape().dim_sizes());
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    OP_REQUIRES_OK(ctx, CheckConvBiasShape(bias.shape(), s.out_depth));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(s.OutputDims()), &out));
    if (out->NumElements() == 0) return;
    nn::Conv2DForward<T>(ctx, s, input.data<T>(), filter.data<T>(), out->data<T>());
    AddBiasAndRelu(ctx, bias, out);
  }

 private:
  // out[..., c] = out[..., c] + bias[c], then max(., 0) if relu_: BiasAdd's and Relu's Eigen
  // expressions, over bands of rows of [positions, out_depth].
  void AddBiasAndRelu(OpKernelContext* ctx, const Tensor& bias, Tensor* out) const {
    using Rows = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const int64_t depth = bias.NumElements();
    const int64_t rows = out->NumElements() / depth;
    Eigen::Map<Rows> o(out->data<T>(), rows, depth);
    Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> b(bias.data<T>(), depth);
    nn::Shard(ctx, rows, depth, [&](int64_t lo, int64_t hi) {
      auto band = o.middleRows(lo, hi - lo);
      band.rowwise() += b;
      if (relu_) band = band.binaryExpr(Rows::Constant(hi - lo, depth, T(0)), cwise::MaxOp<T>());
    });
  }

  bool relu_ = false;
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("_FusedConv2D", FusedConv2DOp);

}  // namespace fb
