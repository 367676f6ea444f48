#pragma once
// Kernels of the control-flow ops (engine/ops/control_flow_ops.cc, whitepaper 4.4) for every
// device: they move tensors without copying or reading them (the frame and iteration bookkeeping
// is the executor's, engine/runtime/executor_frames.cc). The one value they read, the bool
// predicate of Switch and LoopCond, is read on the host: where it arrives in device memory (a GPU
// whose executor gave no host-memory input) it is copied back with Device::CopyToHost (a
// synchronous copy of one byte; a no-op for host tensors). LoopCond's output is that host copy,
// so the Switch nodes of a loop read it without copies (its GPU kernel declares the output host
// memory, as TensorFlow's does). Registered for CPU in control_flow_kernels.cc and for GPU in
// kernels/cuda/control_flow_ops.cc. All are cheap and run inline.
#include "engine/framework/op_kernel.h"

namespace fb {

// Forwards data (input 0) to output_true (1) or output_false (0) by the scalar bool `pred`
// (input 1); the other output is dead. InvalidArgument when pred is not a scalar.
class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

// Forwards its first live input and outputs that input's index as an int32 host scalar.
class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

// Enter, Exit, NextIteration: identities; the executor moves the value between frames.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->forward_input(0, 0); }
  bool IsExpensive() const override { return false; }
};

// Forwards the loop predicate (a bool scalar) in host memory. InvalidArgument when it is not a
// scalar.
class LoopCondOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

// The bool scalar `pred` (input i of `ctx`'s kernel) read on the host. InvalidArgument naming
// `what` when it is not a scalar; the device's copy error when it cannot be copied back.
StatusOr<bool> ReadPredicate(OpKernelContext* ctx, int i, const char* what);

}  // namespace fb
