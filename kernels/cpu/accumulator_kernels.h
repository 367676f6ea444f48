#pragma once
// Kernels of the forward-accumulator ops (engine/ops/accumulator_ops.cc) for every device: a map
// from iteration index to tensor in the device's ResourceMgr. Values are stored and returned as
// they are (a GPU tensor stays in GPU memory, untouched); the handle is a host string and the
// int32 index is read on the host (copied back with Device::CopyToHost where it arrives in device
// memory). Registered for CPU in accumulator_kernels.cc and for GPU in
// kernels/cuda/control_flow_ops.cc. Push and Pop must run on the device whose ResourceMgr holds
// the accumulator: the loop-gradient builder colocates them with their ForwardAccumulator
// (engine/client/while_gradients.cc).
#include "engine/framework/op_kernel.h"

namespace fb {

// Creates this step/frame/iteration's accumulator and outputs its handle (string scalar).
class ForwardAccumulatorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

// Saves input 2 under the int32 scalar index (input 1). AlreadyExists when the index is taken;
// InvalidArgument for a non-scalar handle or index; NotFound for an unknown handle.
class AccumulatorPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

// Removes and outputs the value saved under the index; dead output when none was saved.
class AccumulatorPopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }
};

}  // namespace fb
