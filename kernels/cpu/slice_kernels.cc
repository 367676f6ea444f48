// CPU kernels of Slice and Pad (engine/ops/array_slice_ops.cc; Split is in concat_kernels.cc) for
// every dtype. Slices of whole rows of dimension 0 share the input's buffer (Tensor::Slice);
// other slices are copied box by box.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_copy.h"
#include "kernels/cpu/array_io.h"

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

// Slice: the input itself, a view of whole rows of dimension 0, or a copied box.
void RunSlice(OpKernelContext* ctx, const array_io::SliceArgs& args) {
  const Tensor& input = ctx->input(0);
  const std::vector<int64_t>& begin = args.begin;
  const TensorShape& shape = args.shape;
  const std::vector<int64_t>& box = shape.dim_sizes();
  if (shape == input.shape()) {
    ctx->forward_input(0, 0);
  } else if (IsRowRange(input.shape().dim_sizes(), begin, box)) {
    ctx->set_output(0, input.Slice(begin[0], begin[0] + box[0]));
  } else {
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->NumElements() > 0) CopyOutBox(input, begin, out);
  }
}

// Pad: zeros, then the input copied in at the leading paddings.
void RunPad(OpKernelContext* ctx, const array_io::PadArgs& args) {
  const Tensor& input = ctx->input(0);
  const std::vector<int64_t>& pads = args.paddings;
  const TensorShape& shape = args.shape;
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  std::vector<int64_t> before;
  for (int i = 0; i < input.dims(); ++i) before.push_back(pads[2 * i]);
  VisitDataType(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::fill(out->data<T>(), out->data<T>() + out->NumElements(), T{});
    if (input.NumElements() > 0)
      CopyBox<T>(out->data<T>(), shape.dim_sizes(), before, input.data<T>(),
                 input.shape().dim_sizes(), /*to_small=*/false);
  });
}

using SliceOp =
    array_io::ArgsOp<array_io::SliceArgs, array_io::ReadSlice, array_io::ReadHostInts, RunSlice>;
using PadOp =
    array_io::ArgsOp<array_io::PadArgs, array_io::ReadPad, array_io::ReadHostInts, RunPad>;

REGISTER_KERNEL(KernelDefBuilder("Slice").Device(DEVICE_CPU), SliceOp);
REGISTER_KERNEL(KernelDefBuilder("Pad").Device(DEVICE_CPU), PadOp);

}  // namespace

}  // namespace fb
