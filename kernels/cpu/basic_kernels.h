#pragma once
// Const and Identity: device-independent kernels, registered for the CPU
// (kernels/cpu/basic_kernels.cc) and the GPU (kernels/cuda/state_ops.cc).
#include "engine/framework/op_kernel.h"

namespace fb {

// Const: outputs the `value` attr (InvalidArgument at construction when its dtype is not the
// `dtype` attr). The value is copied to the device's memory once, when the kernel is built
// (Device::CopyFromHost; the CPU keeps it as it is), except with kHost: then it stays in host
// memory (the GPU's int32 Consts, registered HostMemory("output"): shapes, axes and sizes read on
// the host).
template <bool kHost = false>
class ConstOp : public OpKernel {
 public:
  explicit ConstOp(OpKernelConstruction* c) : OpKernel(c) {
    Tensor value;
    c->SetStatus(c->GetAttr("value", &value));
    DataType dtype{};
    c->SetStatus(c->GetAttr("dtype", &dtype));
    if (!c->status().ok()) return;
    if (value.dtype() != dtype) {
      c->SetStatus(InvalidArgument("value is ", DataTypeString(value.dtype()), " but dtype is ",
                                   DataTypeString(dtype)));
      return;
    }
    if (kHost) {
      value_ = value;
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

// Identity (and the GPU's StopGradient, which only autodiff treats differently): forwards input 0
// to output 0 (no copy).
class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->forward_input(0, 0); }
  bool IsExpensive() const override { return false; }
};

}  // namespace fb
