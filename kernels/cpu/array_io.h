#pragma once
// The input checks and output shapes that the CPU and GPU kernels of the array ops share
// (engine/ops/array_slice_ops.cc, array_transpose_ops.cc, array_tile_ops.cc): Slice, Pad,
// Transpose, Tile, ConcatV2, Concat, Pack, Split and Unpack. Each Read* function checks the
// kernel's inputs the way both devices do, reads its int arguments (shapes, axes, sizes) and
// returns what the kernel needs to copy data; errors are InvalidArgument naming the argument,
// identical on both devices (the shape rules are engine/ops/array_shape_util.h's).
#include <cstdint>
#include <vector>

#include "engine/framework/op_kernel.h"

namespace fb::array_io {

// Reads int32/int64 input `i` as int64 values on the host. The CPU kernels pass ReadHostInts;
// the GPU kernels pass theirs, which copies an input in GPU memory to the host first.
using IntInputReader = StatusOr<std::vector<int64_t>> (*)(OpKernelContext* ctx, int i);
// Input `i` as it is (a host tensor).
StatusOr<std::vector<int64_t>> ReadHostInts(OpKernelContext* ctx, int i);

// A kernel that reads and checks its inputs with kRead (its int arguments with kInts) and then
// runs the device's kRun on them (Slice, Pad, Transpose and Tile on the CPU and the GPU).
template <typename Args, StatusOr<Args> (*kRead)(OpKernelContext*, IntInputReader),
          IntInputReader kInts, void (*kRun)(OpKernelContext*, const Args&)>
class ArgsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto args = kRead(ctx, kInts);
    OP_REQUIRES_OK(ctx, args.status());
    kRun(ctx, *args);
  }
};

// Slice(input, begin, size): begin and size must be 1-D.
struct SliceArgs {
  std::vector<int64_t> begin;
  TensorShape shape;  // the output's
};
StatusOr<SliceArgs> ReadSlice(OpKernelContext* ctx, IntInputReader read);

// Pad(input, paddings): paddings must be [rank, 2] (before, after).
struct PadArgs {
  std::vector<int64_t> paddings;  // row-major [rank, 2]
  TensorShape shape;              // the output's
};
StatusOr<PadArgs> ReadPad(OpKernelContext* ctx, IntInputReader read);

// Transpose(x, perm): perm must be 1-D and a permutation of [0, rank).
struct TransposeArgs {
  std::vector<int64_t> perm;
  TensorShape shape;      // the output's
  bool identity = false;  // perm is [0, 1, ..., rank-1]: the output is x
};
StatusOr<TransposeArgs> ReadTranspose(OpKernelContext* ctx, IntInputReader read);

// Tile(input, multiples): multiples must be 1-D; returns the output shape.
StatusOr<TensorShape> ReadTile(OpKernelContext* ctx, IntInputReader read);

// Output 0 of `shape` for an op whose output is its input 0 itself when the shapes agree (Slice,
// Tile): then forwards input 0 and returns nullptr; else allocates output 0 and returns it.
// Errors: those of allocate_output.
StatusOr<Tensor*> ForwardOrAllocate(OpKernelContext* ctx, const TensorShape& shape);

// What ConcatV2, Concat and Pack join: `values` side by side along `axis` (canonical in the
// output, whose shape is `shape`).
struct JoinArgs {
  std::vector<Tensor> values;
  int axis = 0;
  TensorShape shape;
};
// ConcatV2(values..., axis) or, with `axis_first`, Concat(concat_dim, values...): the axis must
// be a scalar.
StatusOr<JoinArgs> ReadConcat(OpKernelContext* ctx, bool axis_first, IntInputReader read);
// Pack(values...) with the `axis` attr.
StatusOr<JoinArgs> ReadPack(OpKernelContext* ctx, int64_t axis);

// What Split and Unpack cut their value into: pieces of shape `piece` along `axis` (canonical in
// the value).
struct CutArgs {
  int axis = 0;
  TensorShape piece;
};
// Split(split_dim, value) into num_outputs() pieces: split_dim must be a scalar.
StatusOr<CutArgs> ReadSplit(OpKernelContext* ctx, IntInputReader read);
// Unpack(value) with the `axis` attr, into num_outputs() pieces.
StatusOr<CutArgs> ReadUnpack(OpKernelContext* ctx, int64_t axis);
// The outputs of a cut of `value`: for args.axis == 0, sets each output to its piece as a view of
// `value` (sharing its buffer) and returns no tensors; else allocates each output (args.piece)
// and returns them, for the device to fill. Errors: those of allocate_output.
StatusOr<std::vector<Tensor*>> CutOutputs(OpKernelContext* ctx, const Tensor& value,
                                          const CutArgs& args);

}  // namespace fb::array_io
