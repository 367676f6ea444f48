#pragma once
// The kernels of ConcatV2, Concat, Pack, Split and Unpack (engine/ops/array_slice_ops.cc) for any
// device: the inputs are checked and the output shapes computed by array_io (the same messages on
// every device), then the device's join function copies the values side by side into output 0,
// or its cut function sets the outputs to the pieces of the value. The CPU instantiates them in
// kernels/cpu/concat_kernels.cc, the GPU in kernels/cuda/array_ops.cc.
#include <utility>

#include "kernels/cpu/array_io.h"

namespace fb::array_io {

// Allocates output 0 of args.shape and copies args.values into it side by side along args.axis.
using JoinFn = void (*)(OpKernelContext* ctx, JoinArgs args);
// Sets each output to its piece (args.piece, along args.axis) of input `value_input`.
using CutFn = void (*)(OpKernelContext* ctx, int value_input, const CutArgs& args);

// ConcatV2 (axis last) and Concat (axis first), axis read with kRead.
template <JoinFn kJoin, IntInputReader kRead>
class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* c)
      : OpKernel(c), axis_first_(c->def().op == "Concat") {}
  void Compute(OpKernelContext* ctx) override {
    auto args = ReadConcat(ctx, axis_first_, kRead);
    OP_REQUIRES_OK(ctx, args.status());
    kJoin(ctx, std::move(*args));
  }

 private:
  bool axis_first_;
};

// Pack (Join) and Unpack (Cut) with the `axis` attr.
template <JoinFn kJoin>
class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto args = ReadPack(ctx, axis_);
    OP_REQUIRES_OK(ctx, args.status());
    kJoin(ctx, std::move(*args));
  }

 private:
  int64_t axis_ = 0;
};

template <CutFn kCut>
class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto args = ReadUnpack(ctx, axis_);
    OP_REQUIRES_OK(ctx, args.status());
    kCut(ctx, 0, *args);
  }

 private:
  int64_t axis_ = 0;
};

// Split(split_dim, value), split_dim read with kRead.
template <CutFn kCut, IntInputReader kRead>
class SplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto args = ReadSplit(ctx, kRead);
    OP_REQUIRES_OK(ctx, args.status());
    kCut(ctx, 1, *args);
  }
};

}  // namespace fb::array_io
