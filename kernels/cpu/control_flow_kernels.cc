// CPU kernels of the control-flow ops (engine/ops/control_flow_ops.cc, whitepaper 4.4). They move
// tensors without copying; the frame and iteration bookkeeping is the executor's
// (engine/runtime/executor_frames.cc). All are cheap and run inline.
#include "engine/framework/op_kernel.h"

namespace fb {

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0,
                InvalidArgument("pred must be a scalar, got shape ", pred.shape().DebugString()));
    const int taken = pred.scalar<bool>() ? 1 : 0;
    ctx->forward_input(0, taken);
    ctx->set_output_dead(1 - taken);
  }
  bool IsExpensive() const override { return false; }
};

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const std::vector<bool>* dead = ctx->params().input_is_dead;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (dead != nullptr && i < static_cast<int>(dead->size()) && (*dead)[i]) continue;
      ctx->forward_input(i, 0);
      ctx->set_output(1, Tensor::Scalar<int32_t>(i));
      return;
    }
    ctx->SetStatus(Internal("Merge ran with every input dead"));
  }
  bool IsExpensive() const override { return false; }
};

// Enter, Exit, NextIteration, LoopCond: identities; the executor moves the value between frames.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->forward_input(0, 0); }
  bool IsExpensive() const override { return false; }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(KernelDefBuilder("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL(KernelDefBuilder("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL(KernelDefBuilder("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("LoopCond").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("ControlTrigger").Device(DEVICE_CPU), ControlTriggerOp);

}  // namespace fb
