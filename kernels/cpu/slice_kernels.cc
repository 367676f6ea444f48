// CPU kernels of Slice, Pad and Split (engine/ops/array_slice_ops.cc) for every dtype. Pieces
// along dimension 0 share the input's buffer (Tensor::Slice); other pieces are copied box by box.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_copy.h"

namespace fb {

namespace {

// Whether the box [begin, begin + box) of `dims` is a run of whole rows of dimension 0.
bool IsRowRange(const std::vector<int64_t>& dims, const std::vector<int64_t>& begin,
                const std::vector<int64_t>& box) {
  for (size_t i = 1; i < dims.size(); ++i)
    if (begin[i] != 0 || box[i] != dims[i]) return false;
  return !dims.empty();
}

// Copies the box of `input` at `begin` with the shape of `*out` into `*out`.
void CopyOutBox(const Tensor& input, const std::vector<int64_t>& begin, Tensor* out) {
  VisitDataType(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    CopyBox<T>(input.data<T>(), input.shape().dim_sizes(), begin, out->data<T>(),
               out->shape().dim_sizes(), /*to_small=*/true);
  });
}

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, ctx->input(1).dims() == 1 && ctx->input(2).dims() == 1,
                InvalidArgument("begin and size must be 1-D, got shapes ",
                                ctx->input(1).shape().DebugString(), " and ",
                                ctx->input(2).shape().DebugString()));
    std::vector<int64_t> begin = IntTensorValues(ctx->input(1));
    auto shape = SliceShape(input.shape(), begin, IntTensorValues(ctx->input(2)));
    OP_REQUIRES_OK(ctx, shape.status());
    const std::vector<int64_t>& box = shape->dim_sizes();
    if (*shape == input.shape()) {
      ctx->forward_input(0, 0);
    } else if (IsRowRange(input.shape().dim_sizes(), begin, box)) {
      ctx->set_output(0, input.Slice(begin[0], begin[0] + box[0]));
    } else {
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
      if (out->NumElements() > 0) CopyOutBox(input, begin, out);
    }
  }
};

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(1) == 2,
                InvalidArgument("paddings must be [rank, 2], got shape ",
                                paddings.shape().DebugString()));
    std::vector<int64_t> pads = IntTensorValues(paddings);
    auto shape = PadShape(input.shape(), pads);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    std::vector<int64_t> before;
    for (int i = 0; i < input.dims(); ++i) before.push_back(pads[2 * i]);
    VisitDataType(input.dtype(), [&](auto zero) {
      using T = decltype(zero);
      std::fill(out->data<T>(), out->data<T>() + out->NumElements(), T{});
      if (input.NumElements() > 0)
        CopyBox<T>(out->data<T>(), shape->dim_sizes(), before, input.data<T>(),
                   input.shape().dim_sizes(), /*to_small=*/false);
    });
  }
};

class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& axis_t = ctx->input(0);
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, axis_t.NumElements() == 1,
                InvalidArgument("split_dim must be a scalar, got shape ",
                                axis_t.shape().DebugString()));
    const int n = num_outputs();
    const int64_t axis_value = IntTensorValues(axis_t)[0];
    auto piece = SplitShape(value.shape(), axis_value, n);
    OP_REQUIRES_OK(ctx, piece.status());
    const int axis = static_cast<int>(axis_value < 0 ? axis_value + value.dims() : axis_value);
    const int64_t width = piece->dim_size(axis);
    if (axis == 0) {
      for (int i = 0; i < n; ++i) ctx->set_output(i, value.Slice(i * width, (i + 1) * width));
      return;
    }
    std::vector<Tensor*> outs(n);
    for (int i = 0; i < n; ++i) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, *piece, &outs[i]));
    const std::vector<int64_t>& dims = value.shape().dim_sizes();
    const int64_t outer = DimProduct(dims, 0, axis);
    const int64_t inner = DimProduct(dims, axis + 1, value.dims());
    VisitDataType(value.dtype(), [&](auto zero) {
      using T = decltype(zero);
      std::vector<T*> parts;
      for (Tensor* t : outs) parts.push_back(t->data<T>());
      JoinColumns<T>(value.data<T>(), outer, parts, std::vector<int64_t>(n, width * inner),
                     /*join=*/false);
    });
  }
};

REGISTER_KERNEL(KernelDefBuilder("Slice").Device(DEVICE_CPU), SliceOp);
REGISTER_KERNEL(KernelDefBuilder("Pad").Device(DEVICE_CPU), PadOp);
REGISTER_KERNEL(KernelDefBuilder("Split").Device(DEVICE_CPU), SplitOp);

}  // namespace

}  // namespace fb
