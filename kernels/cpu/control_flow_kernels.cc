// CPU kernels of the control-flow ops; see control_flow_kernels.h (shared with the GPU).
#include "kernels/cpu/control_flow_kernels.h"

namespace fb {

StatusOr<bool> ReadPredicate(OpKernelContext* ctx, int i, const char* what) {
  const Tensor& pred = ctx->input(i);
  if (pred.dims() != 0)
    return InvalidArgument(what, " must be a scalar, got shape ", pred.shape().DebugString());
  ASSIGN_OR_RETURN(Tensor host, ctx->device()->CopyToHost(pred));
  return host.scalar<bool>();
}

void SwitchOp::Compute(OpKernelContext* ctx) {
  auto pred = ReadPredicate(ctx, 1, "pred");
  OP_REQUIRES_OK(ctx, pred.status());
  const int taken = *pred ? 1 : 0;
  ctx->forward_input(0, taken);
  ctx->set_output_dead(1 - taken);
}

void MergeOp::Compute(OpKernelContext* ctx) {
  const std::vector<bool>* dead = ctx->params().input_is_dead;
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    if (dead != nullptr && i < static_cast<int>(dead->size()) && (*dead)[i]) continue;
    ctx->forward_input(i, 0);
    ctx->set_output(1, Tensor::Scalar<int32_t>(i));
    return;
  }
  ctx->SetStatus(Internal("Merge ran with every input dead"));
}

void LoopCondOp::Compute(OpKernelContext* ctx) {
  const Tensor& pred = ctx->input(0);
  OP_REQUIRES(ctx, pred.dims() == 0,
              InvalidArgument("input must be a scalar, got shape ", pred.shape().DebugString()));
  auto host = ctx->device()->CopyToHost(pred);
  OP_REQUIRES_OK(ctx, host.status());
  ctx->set_output(0, *host);
}

REGISTER_KERNEL(KernelDefBuilder("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL(KernelDefBuilder("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL(KernelDefBuilder("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL(KernelDefBuilder("LoopCond").Device(DEVICE_CPU), LoopCondOp);
REGISTER_KERNEL(KernelDefBuilder("ControlTrigger").Device(DEVICE_CPU), ControlTriggerOp);

}  // namespace fb
