// Variable, Assign, AssignAdd, AssignSub, IsVariableInitialized, ResetContainer (whitepaper 4.7).
#include "engine/framework/op_kernel.h"

namespace fb {

class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = c->def().name;
    c->SetStatus(c->GetAttr("shape", &shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> l(mu_);
    if (!var_) {
      auto var = ctx->resource_manager()->LookupOrCreate<Var>(
          container_, shared_name_, [this] {
            auto v = std::make_shared<Var>();
            v->set_declared_shape(shape_);
            return v;
          });
      OP_REQUIRES_OK(ctx, var.status());
      var_ = *var;
    }
    ctx->set_output_ref(0, var_.get());
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, shared_name_;
  TensorShape shape_ = UnknownRankShape();
  std::mutex mu_;
  std::shared_ptr<Var> var_;
};

// `actual` fits `declared` (-1 dims and unknown rank match anything).
static bool ShapeCompatible(const TensorShape& declared, const TensorShape& actual) {
  if (IsUnknownRank(declared)) return true;
  if (declared.rank() != actual.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i) {
    if (declared.dim_size(i) >= 0 && declared.dim_size(i) != actual.dim_size(i)) return false;
  }
  return true;
}

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("validate_shape", &validate_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    OP_REQUIRES(ctx, var != nullptr, Internal("Assign input 0 is not a reference"));
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> l(*var->mu());
      const TensorShape& want =
          var->is_initialized() ? var->tensor()->shape() : var->declared_shape();
      OP_REQUIRES(ctx, !validate_shape_ || ShapeCompatible(want, value.shape()),
                  InvalidArgument("cannot assign a value of shape ", value.shape().DebugString(),
                                  " to a variable of shape ", want.DebugString()));
      // Copy so that later in-place updates never alias the assigned tensor, unless nothing but
      // this kernel's input holds the value's buffer (a value computed in this step for this
      // Assign only, as an initializer's RandomUniform -> Mul -> Sub): then the Variable takes
      // the buffer (TensorFlow's Assign does too) and a weight's initialization holds one
      // buffer instead of two (overfeat: 557 MiB less at init).
      if (ctx->input_ref(1) == nullptr && value.BufferRefCount() == 1 &&
          value.NumElements() > 0) {
        *var->tensor() = value;
      } else {
        *var->tensor() = value.DeepCopy(ctx->allocator());
      }
    }
    ctx->set_output_ref(0, var);
  }

 private:
  bool validate_shape_ = true;
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
      OP_REQUIRES(ctx, var->is_initialized(),
                  FailedPrecondition("attempting to update uninitialized variable"));
      OP_REQUIRES(ctx, var->tensor()->shape() == value.shape(),
                  InvalidArgument("variable has shape ", var->tensor()->shape().DebugString(),
                                  ", update has shape ", value.shape().DebugString()));
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
