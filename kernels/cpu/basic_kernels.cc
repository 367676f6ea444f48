// Kernels for the ops the engine relies on: Const, Placeholder, Identity, NoOp (Const and Identity
// are in basic_kernels.h, shared with the GPU). Registered for CPU; Identity and NoOp also for GPU
// (they touch no memory).
#include "kernels/cpu/basic_kernels.h"

namespace fb {

class PlaceholderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(InvalidArgument("Placeholder '", name(),
                                   "' must be fed a value (add it to the feeds of Run)"));
  }
};

class NoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(KernelDefBuilder("Const").Device(DEVICE_CPU), ConstOp<>);
REGISTER_KERNEL(KernelDefBuilder("Placeholder").Device(DEVICE_CPU), PlaceholderOp);
REGISTER_KERNEL(KernelDefBuilder("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL(KernelDefBuilder("NoOp").Device(DEVICE_CPU), NoOp);
// int32 Identity on a GPU stays in host memory, as every int32 loop counter and shape does there
// (kernels/cuda/control_flow_ops.cc; TensorFlow registers it the same way). Registered first, so
// that the registry picks it for T = int32: without it a while loop's counter went through GPU
// memory and back every iteration (Switch -> Identity -> Add), a copy to the device and a
// synchronising copy back, 43 us per iteration of an empty loop on an H200
// (benchmarks/while_loop_gpubench.cc).
REGISTER_KERNEL(KernelDefBuilder("Identity")
                    .Device(DEVICE_GPU)
                    .TypeConstraint<int32_t>("T")
                    .HostMemory("input")
                    .HostMemory("output"),
                IdentityOp);
REGISTER_KERNEL(KernelDefBuilder("Identity").Device(DEVICE_GPU), IdentityOp);
REGISTER_KERNEL(KernelDefBuilder("NoOp").Device(DEVICE_GPU), NoOp);

}  // namespace fb
