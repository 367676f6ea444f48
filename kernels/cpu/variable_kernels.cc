// Variable, Assign, AssignAdd, AssignSub, IsVariableInitialized, ResetContainer (whitepaper 4.7).
#include "engine/framework/op_kernel.h"
#include "kernels/cpu/variable_op.h"

namespace fb {

// The Variable kernel and Assign's checks are shared with the GPU (kernels/cpu/variable_op.h).
class AssignOp : public AssignOpBase {
 public:
  using AssignOpBase::AssignOpBase;

 protected:
  bool CanTakeBuffer(const Tensor&) const override { return true; }
  StatusOr<Tensor> CopyValue(OpKernelContext* ctx, const Tensor& value) const override {
    return value.DeepCopy(ctx->allocator());
  }
};

template <typename T, bool kAdd>
class AssignUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    OP_REQUIRES(ctx, var != nullptr, Internal("input 0 is not a reference"));
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> l(*var->mu());
      OP_REQUIRES_OK(ctx, CheckAssignUpdate(var, value.shape()));
      var->PrepareForWrite();
      if (kAdd) var->tensor()->flat<T>() += value.flat<T>();
      else var->tensor()->flat<T>() -= value.flat<T>();
    }
    ctx->set_output_ref(0, var);
  }
};

class IsVariableInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    std::lock_guard<std::mutex> l(*var->mu());
    ctx->set_output(0, Tensor::Scalar<bool>(var->is_initialized()));
  }
};

class ResetContainerOp : public OpKernel {
 public:
  explicit ResetContainerOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("container", &container_));
  }
  void Compute(OpKernelContext* ctx) override { ctx->resource_manager()->Cleanup(container_); }

 private:
  std::string container_;
};

REGISTER_KERNEL(KernelDefBuilder("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL(KernelDefBuilder("Assign").Device(DEVICE_CPU), AssignOp);
#define FB_REGISTER_ASSIGN_UPDATE(T)                                                          \
  REGISTER_KERNEL(KernelDefBuilder("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                  AssignUpdateOp<T, true>);                                                   \
  REGISTER_KERNEL(KernelDefBuilder("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>("T"),   \
                  AssignUpdateOp<T, false>);
FB_REGISTER_ASSIGN_UPDATE(float)
FB_REGISTER_ASSIGN_UPDATE(double)
FB_REGISTER_ASSIGN_UPDATE(int32_t)
FB_REGISTER_ASSIGN_UPDATE(int64_t)
#undef FB_REGISTER_ASSIGN_UPDATE
REGISTER_KERNEL(KernelDefBuilder("IsVariableInitialized").Device(DEVICE_CPU), IsVariableInitializedOp);
REGISTER_KERNEL(KernelDefBuilder("ResetContainer").Device(DEVICE_CPU), ResetContainerOp);

}  // namespace fb
