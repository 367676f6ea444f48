#include "kernels/cpu/array_io.h"

#include "engine/ops/array_shape_util.h"
#include "engine/ops/array_tile_util.h"

namespace fb::array_io {
namespace {

// `axis` in [-rank, rank) as an index in [0, rank) (the shape rules have checked the range).
int Canonical(int64_t axis, int rank) { return static_cast<int>(axis < 0 ? axis + rank : axis); }

}  // namespace

StatusOr<std::vector<int64_t>> ReadHostInts(OpKernelContext* ctx, int i) {
  return IntTensorValues(ctx->input(i));
}

StatusOr<SliceArgs> ReadSlice(OpKernelContext* ctx, IntInputReader read) {
  if (ctx->input(1).dims() != 1 || ctx->input(2).dims() != 1)
    return InvalidArgument("begin and size must be 1-D, got shapes ",
                           ctx->input(1).shape().DebugString(), " and ",
                           ctx->input(2).shape().DebugString());
  SliceArgs args;
  ASSIGN_OR_RETURN(args.begin, read(ctx, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> size, read(ctx, 2));
  ASSIGN_OR_RETURN(args.shape, SliceShape(ctx->input(0).shape(), args.begin, size));
  return args;
}

StatusOr<PadArgs> ReadPad(OpKernelContext* ctx, IntInputReader read) {
  const Tensor& paddings = ctx->input(1);
  if (paddings.dims() != 2 || paddings.dim_size(1) != 2)
    return InvalidArgument("paddings must be [rank, 2], got shape ",
                           paddings.shape().DebugString());
  PadArgs args;
  ASSIGN_OR_RETURN(args.paddings, read(ctx, 1));
  ASSIGN_OR_RETURN(args.shape, PadShape(ctx->input(0).shape(), args.paddings));
  return args;
}

StatusOr<TransposeArgs> ReadTranspose(OpKernelContext* ctx, IntInputReader read) {
  if (ctx->input(1).dims() != 1)
    return InvalidArgument("perm must be 1-D, got shape ", ctx->input(1).shape().DebugString());
  TransposeArgs args;
  ASSIGN_OR_RETURN(args.perm, read(ctx, 1));
  ASSIGN_OR_RETURN(args.shape, TransposeShape(ctx->input(0).shape(), args.perm));
  args.identity = true;
  for (size_t i = 0; i < args.perm.size(); ++i)
    args.identity = args.identity && args.perm[i] == static_cast<int64_t>(i);
  return args;
}

StatusOr<TensorShape> ReadTile(OpKernelContext* ctx, IntInputReader read) {
  const Tensor& multiples = ctx->input(1);
  if (multiples.dims() != 1)
    return InvalidArgument("multiples must be 1-D, got shape ", multiples.shape().DebugString());
  ASSIGN_OR_RETURN(std::vector<int64_t> m, read(ctx, 1));
  return TileShape(ctx->input(0).shape(), m);
}

StatusOr<Tensor*> ForwardOrAllocate(OpKernelContext* ctx, const TensorShape& shape) {
  if (shape == ctx->input(0).shape()) {
    ctx->forward_input(0, 0);
    return nullptr;
  }
  Tensor* out;
  RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
  return out;
}

StatusOr<JoinArgs> ReadConcat(OpKernelContext* ctx, bool axis_first, IntInputReader read) {
  const int n = ctx->num_inputs() - 1;
  const int axis_input = axis_first ? 0 : n;
  if (ctx->input(axis_input).NumElements() != 1)
    return InvalidArgument("axis must be a scalar, got shape ",
                           ctx->input(axis_input).shape().DebugString());
  ASSIGN_OR_RETURN(std::vector<int64_t> axis, read(ctx, axis_input));
  JoinArgs args;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < n; ++i) {
    args.values.push_back(ctx->input(axis_first ? i + 1 : i));
    shapes.push_back(args.values.back().shape());
  }
  ASSIGN_OR_RETURN(args.shape, ConcatShape(shapes, axis[0]));
  args.axis = Canonical(axis[0], args.shape.rank());
  return args;
}

StatusOr<JoinArgs> ReadPack(OpKernelContext* ctx, int64_t axis) {
  JoinArgs args;
  std::vector<TensorShape> shapes;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    args.values.push_back(ctx->input(i));
    shapes.push_back(args.values.back().shape());
  }
  ASSIGN_OR_RETURN(args.shape, PackShape(shapes, axis));
  args.axis = Canonical(axis, args.shape.rank());
  return args;
}

StatusOr<CutArgs> ReadSplit(OpKernelContext* ctx, IntInputReader read) {
  if (ctx->input(0).NumElements() != 1)
    return InvalidArgument("split_dim must be a scalar, got shape ",
                           ctx->input(0).shape().DebugString());
  ASSIGN_OR_RETURN(std::vector<int64_t> axis, read(ctx, 0));
  const Tensor& value = ctx->input(1);
  CutArgs args;
  ASSIGN_OR_RETURN(args.piece, SplitShape(value.shape(), axis[0], ctx->num_outputs()));
  args.axis = Canonical(axis[0], value.dims());
  return args;
}

StatusOr<CutArgs> ReadUnpack(OpKernelContext* ctx, int64_t axis) {
  const Tensor& value = ctx->input(0);
  CutArgs args;
  ASSIGN_OR_RETURN(args.piece, UnpackShape(value.shape(), ctx->num_outputs(), axis));
  args.axis = Canonical(axis, value.dims());
  return args;
}

StatusOr<std::vector<Tensor*>> CutOutputs(OpKernelContext* ctx, const Tensor& value,
                                          const CutArgs& args) {
  const TensorShape& piece = args.piece;
  const int n = ctx->num_outputs();
  std::vector<Tensor*> outs;
  if (args.axis == 0) {
    const int64_t width = value.dims() == piece.rank() ? piece.dim_size(0) : 1;
    for (int i = 0; i < n; ++i)
      ctx->set_output(i, value.Slice(i * width, (i + 1) * width).Reshaped(piece));
    return outs;
  }
  outs.resize(n);
  for (int i = 0; i < n; ++i) RETURN_IF_ERROR(ctx->allocate_output(i, piece, &outs[i]));
  return outs;
}

}  // namespace fb::array_io
