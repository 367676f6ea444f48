// Kernels for the ops the engine relies on: Const, Placeholder, Identity, NoOp.
// Registered for CPU; Identity and NoOp also for GPU (they touch no memory).
#include "engine/framework/op_kernel.h"

namespace fb {

class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* c) : OpKernel(c) {
    Tensor value;
    c->SetStatus(c->GetAttr("value", &value));
    DataType dtype;
    c->SetStatus(c->GetAttr("dtype", &dtype));
    if (!c->status().ok()) return;
    if (value.dtype() != dtype) {
      c->SetStatus(InvalidArgument("value is ", DataTypeString(value.dtype()), " but dtype is ",
                                   DataTypeString(dtype)));
      return;
    }
    auto on_device = c->device()->CopyFromHost(value);
    if (on_device.ok()) value_ = *on_device; else c->SetStatus(on_device.status());
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

class PlaceholderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->SetStatus(InvalidArgument("Placeholder '", name(),
                                   "' must be fed a value (add it to the feeds of Run)"));
  }
};

class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->forward_input(0, 0); }
  bool IsExpensive() const override { return false; }
};

class NoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(KernelDefBuilder("Const").Device(DEVICE_CPU), ConstOp);
REGISTER_KERNEL(KernelDefBuilder("Placeholder").Device(DEVICE_CPU), PlaceholderOp);
REGISTER_KERNEL(KernelDefBuilder("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL(KernelDefBuilder("NoOp").Device(DEVICE_CPU), NoOp);
REGISTER_KERNEL(KernelDefBuilder("Identity").Device(DEVICE_GPU), IdentityOp);
REGISTER_KERNEL(KernelDefBuilder("NoOp").Device(DEVICE_GPU), NoOp);

}  // namespace fb
