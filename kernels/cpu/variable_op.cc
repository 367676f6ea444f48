#include "kernels/cpu/variable_op.h"

namespace fb {

VariableOp::VariableOp(OpKernelConstruction* c) : OpKernel(c) {
  c->SetStatus(c->GetAttr("container", &container_));
  c->SetStatus(c->GetAttr("shared_name", &shared_name_));
  if (shared_name_.empty()) shared_name_ = c->def().name;
  c->SetStatus(c->GetAttr("shape", &shape_));
}

void VariableOp::Compute(OpKernelContext* ctx) {
  std::lock_guard<std::mutex> l(mu_);
  if (!var_) {
    auto var = ctx->resource_manager()->LookupOrCreate<Var>(container_, shared_name_, [this] {
      auto v = std::make_shared<Var>();
      v->set_declared_shape(shape_);
      return v;
    });
    OP_REQUIRES_OK(ctx, var.status());
    var_ = *var;
  }
  ctx->set_output_ref(0, var_.get());
}

namespace {

// `actual` fits `declared` (-1 dims and unknown rank match anything).
bool ShapeCompatible(const TensorShape& declared, const TensorShape& actual) {
  if (IsUnknownRank(declared)) return true;
  if (declared.rank() != actual.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i) {
    if (declared.dim_size(i) >= 0 && declared.dim_size(i) != actual.dim_size(i)) return false;
  }
  return true;
}

}  // namespace

AssignOpBase::AssignOpBase(OpKernelConstruction* c) : OpKernel(c) {
  c->SetStatus(c->GetAttr("validate_shape", &validate_shape_));
}

void AssignOpBase::Compute(OpKernelContext* ctx) {
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
    if (ctx->input_ref(1) == nullptr && value.BufferRefCount() == 1 && value.NumElements() > 0 &&
        CanTakeBuffer(value)) {
      *var->tensor() = value;
    } else {
      auto copy = CopyValue(ctx, value);
      OP_REQUIRES_OK(ctx, copy.status());
      *var->tensor() = std::move(*copy);
    }
  }
  ctx->set_output_ref(0, var);
}

Status CheckAssignUpdate(Var* var, const TensorShape& update) {
  if (!var->is_initialized())
    return FailedPrecondition("attempting to update uninitialized variable");
  if (var->tensor()->shape() != update)
    return InvalidArgument("variable has shape ", var->tensor()->shape().DebugString(),
                           ", update has shape ", update.DebugString());
  return Status::OK();
}

}  // namespace fb
