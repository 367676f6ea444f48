// CPU kernels of ConcatV2, Concat, Pack, Split, Unpack and ConcatOffset
// (engine/ops/array_slice_ops.cc) for every dtype; the first five are the device-independent
// kernels of join_cut_ops.h over the CPU's join and cut. Joining along an axis is a column-wise
// copy of [outer, width] views (kernels/cpu/array_copy.h); pieces along dimension 0 share the
// input's buffer.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_copy.h"
#include "kernels/cpu/join_cut_ops.h"

namespace fb {

namespace {

// array_io::JoinFn: allocates output 0 of args.shape and copies args.values into it side by side
// along args.axis (canonical in the output): each value is viewed as [outer, width] where outer
// is the product of the output dimensions before the axis.
void JoinAlongAxis(OpKernelContext* ctx, array_io::JoinArgs args) {
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, args.shape, &out));
  const int64_t outer = DimProduct(args.shape.dim_sizes(), 0, args.axis);
  if (out->NumElements() == 0) return;
  VisitDataType(out->dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T*> parts;
    std::vector<int64_t> widths;
    for (const Tensor& v : args.values) {
      parts.push_back(v.data<T>());
      widths.push_back(v.NumElements() / outer);
    }
    JoinColumns<T>(out->data<T>(), outer, parts, widths, /*join=*/true);
  });
}

// array_io::CutFn (Split, Unpack): pieces along dimension 0 share the value's buffer; others are
// copied out of the value viewed as [outer, n * width] rows.
void CutAlongAxis(OpKernelContext* ctx, int value_input, const array_io::CutArgs& args) {
  const Tensor& value = ctx->input(value_input);
  auto outs = array_io::CutOutputs(ctx, value, args);
  OP_REQUIRES_OK(ctx, outs.status());
  if (outs->empty() || value.NumElements() == 0) return;
  const int64_t outer = DimProduct(value.shape().dim_sizes(), 0, args.axis);
  const int64_t width = args.piece.num_elements() / outer;
  VisitDataType(value.dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T*> parts;
    for (Tensor* t : *outs) parts.push_back(t->data<T>());
    JoinColumns<T>(value.data<T>(), outer, parts, std::vector<int64_t>(outs->size(), width),
                   /*join=*/false);
  });
}

using ConcatOp = array_io::ConcatOp<JoinAlongAxis, array_io::ReadHostInts>;
using PackOp = array_io::PackOp<JoinAlongAxis>;
using SplitOp = array_io::SplitOp<CutAlongAxis, array_io::ReadHostInts>;
using UnpackOp = array_io::UnpackOp<CutAlongAxis>;

template <typename T>
class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int n = num_inputs() - 1;
    const Tensor& first = ctx->input(1);
    OP_REQUIRES(ctx, first.dims() == 1,
                InvalidArgument("shape 0 must be 1-D, got shape ", first.shape().DebugString()));
    const int rank = static_cast<int>(first.NumElements());
    auto axis = CanonicalAxis(ctx->input(0).data<int32_t>()[0], rank, "concat_dim");
    OP_REQUIRES_OK(ctx, axis.status());
    std::vector<int64_t> ref = IntTensorValues(first);
    T offset = 0;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> dims = IntTensorValues(ctx->input(i + 1));
      bool ok = static_cast<int>(dims.size()) == rank;
      for (int d = 0; ok && d < rank; ++d) ok = d == *axis || dims[d] == ref[d];
      OP_REQUIRES(ctx, ok,
                  InvalidArgument("shape ", i, " = ", IntListString(dims), " does not match shape 0 = ",
                                  IntListString(ref), " outside concat_dim ", *axis));
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape{rank}, &out));
      std::fill(out->data<T>(), out->data<T>() + rank, T{0});
      out->data<T>()[*axis] = offset;
      offset += static_cast<T>(dims[*axis]);
    }
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(KernelDefBuilder("ConcatV2").Device(DEVICE_CPU), ConcatOp);
REGISTER_KERNEL(KernelDefBuilder("Concat").Device(DEVICE_CPU), ConcatOp);
REGISTER_KERNEL(KernelDefBuilder("Pack").Device(DEVICE_CPU), PackOp);
REGISTER_KERNEL(KernelDefBuilder("Split").Device(DEVICE_CPU), SplitOp);
REGISTER_KERNEL(KernelDefBuilder("Unpack").Device(DEVICE_CPU), UnpackOp);
REGISTER_KERNEL(KernelDefBuilder("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int32_t>("shape_type"),
                ConcatOffsetOp<int32_t>);
REGISTER_KERNEL(KernelDefBuilder("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int64_t>("shape_type"),
                ConcatOffsetOp<int64_t>);

}  // namespace

}  // namespace fb
