#pragma once
// The device-independent parts of the state kernels (engine/ops/state_ops.cc, whitepaper 4.7),
// shared by the CPU kernels (kernels/cpu/variable_kernels.cc) and the GPU ones
// (kernels/cuda/state_ops.cc), so that both devices check the same things and fail with the same
// messages: the Variable kernel itself (the Var lives in the device's ResourceMgr and is passed
// on as a reference), Assign's shape check and buffer handling, and AssignAdd/AssignSub's checks.
#include <memory>
#include <mutex>
#include <string>

#include "engine/framework/op_kernel.h"

namespace fb {

// Variable: outputs a reference to the Var named by the `container` and `shared_name` attrs
// (shared_name defaults to the node's name), created on first use with the declared `shape`
// attr. Device-independent: registered for the CPU and the GPU. Thread-safe.
class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* c);
  void Compute(OpKernelContext* ctx) override;
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, shared_name_;
  TensorShape shape_ = UnknownRankShape();
  std::mutex mu_;
  std::shared_ptr<Var> var_;
};

// Assign(ref, value) with the `validate_shape` attr: checks that input 0 is a reference
// (Internal otherwise) and, with validate_shape, that value's shape fits the variable's (its
// current shape, or the declared shape before the first assignment; -1 dims and unknown rank
// match anything; InvalidArgument "cannot assign a value of shape ... to a variable of shape
// ..."). Then, under the Var's mutex, the Var takes value's buffer when nothing but this kernel's
// input holds it (a value computed in this step for this Assign only, as an initializer's
// RandomUniform -> Mul -> Sub; TensorFlow's Assign does too, and a weight's initialization then
// holds one buffer instead of two: overfeat, 557 MiB less at init) and CanTakeBuffer agrees;
// else it stores CopyValue(value), so that later in-place updates never alias the value.
// Outputs the reference.
class AssignOpBase : public OpKernel {
 public:
  explicit AssignOpBase(OpKernelConstruction* c);
  void Compute(OpKernelContext* ctx) final;

 protected:
  // Whether the Var may hold `value`'s own buffer (a device: whether it is in its memory).
  virtual bool CanTakeBuffer(const Tensor& value) const = 0;
  // A new tensor with `value`'s contents in the device's memory.
  virtual StatusOr<Tensor> CopyValue(OpKernelContext* ctx, const Tensor& value) const = 0;

 private:
  bool validate_shape_ = true;
};

// AssignAdd/AssignSub's checks, with var->mu() held: FailedPrecondition when the variable is
// uninitialized, InvalidArgument when its shape differs from the update's.
Status CheckAssignUpdate(Var* var, const TensorShape& update);

}  // namespace fb
