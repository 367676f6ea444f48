// CPU kernels for ApplyGradientDescent, ApplyMomentum and ApplyAdam (engine/ops/training_ops.cc,
// formulas there and in TensorFlow's kernels/training_ops.cc). Each locks the mutexes of its
// Ref inputs (all at once, deadlock-free), makes them writable in place
// (Var::PrepareForWrite copies a buffer a reader still holds), updates them element-wise and
// outputs the ref to `var`. The element-wise update runs in parallel on the intra-op pool.
#include <mutex>

#include "kernels/cpu/nn_kernel_util.h"

namespace fb {
namespace {

using nn::ArrayMap;

// Locks and validates the Ref inputs [0, num_refs) of an Apply kernel; the non-ref inputs
// listed in `scalars` must be scalars and those in `same_shape` must have var's shape.
class ApplyKernelBase : public OpKernel {
 public:
  explicit ApplyKernelBase(OpKernelConstruction* c) : OpKernel(c) {
    for (const ArgDef& a : c->op_def().inputs) input_names_.push_back(a.name);
  }

 protected:
  // The vars behind the ref inputs, or an error (unset ref, a var passed twice).
  StatusOr<std::vector<Var*>> Refs(OpKernelContext* ctx, int num_refs) const {
    std::vector<Var*> vars;
    for (int i = 0; i < num_refs; ++i) {
      Var* v = ctx->input_ref(i);
      if (!v) return Internal("input ", i, " is not a reference");
      for (Var* other : vars)
        if (other == v)
          return InvalidArgument("the same variable is passed as input ", i, " and an earlier input");
      vars.push_back(v);
    }
    return vars;
  }

  // With the vars' mutexes held: checks initialization and shapes, then PrepareForWrite.
  Status CheckAndPrepare(OpKernelContext* ctx, const std::vector<Var*>& vars,
                         const std::vector<int>& scalars, const std::vector<int>& same_shape) const {
    for (size_t i = 0; i < vars.size(); ++i) {
      if (!vars[i]->is_initialized())
        return FailedPrecondition("attempting to use uninitialized variable (input '",
                                  input_names_[i], "')");
      if (vars[i]->tensor()->shape() != vars[0]->tensor()->shape())
        return InvalidArgument(input_names_[i], " has shape ",
                               vars[i]->tensor()->shape().DebugString(), " but var has shape ",
                               vars[0]->tensor()->shape().DebugString());
    }
    const TensorShape& shape = vars[0]->tensor()->shape();
    for (int i : scalars)
      if (ctx->input(i).dims() != 0)
        return InvalidArgument(input_names_[i], " must be a scalar, got shape ",
                               ctx->input(i).shape().DebugString());
    for (int i : same_shape)
      if (ctx->input(i).shape() != shape)
        return InvalidArgument(input_names_[i], " has shape ",
                               ctx->input(i).shape().DebugString(), " but var has shape ",
                               shape.DebugString());
    for (Var* v : vars) v->PrepareForWrite();
    return Status::OK();
  }

  // Locks every var, validates, runs update() and outputs the ref to var.
  template <typename Fn>
  void Run(OpKernelContext* ctx, int num_refs, const std::vector<int>& scalars,
           const std::vector<int>& same_shape, Fn update) const {
    auto vars = Refs(ctx, num_refs);
    OP_REQUIRES_OK(ctx, vars.status());
    std::vector<std::unique_lock<std::mutex>> locks;
    for (Var* v : *vars) locks.emplace_back(*v->mu(), std::defer_lock);
    LockAll(&locks);
    OP_REQUIRES_OK(ctx, CheckAndPrepare(ctx, *vars, scalars, same_shape));
    update(*vars);
    ctx->set_output_ref(0, (*vars)[0]);
  }

 private:
  static void LockAll(std::vector<std::unique_lock<std::mutex>>* locks) {
    auto& l = *locks;
    if (l.size() == 1) l[0].lock();
    else if (l.size() == 2) std::lock(l[0], l[1]);
    else std::lock(l[0], l[1], l[2]);
  }
  std::vector<std::string> input_names_;
};

// Elements [begin, end) of a var's buffer.
template <typename T>
ArrayMap<T> Part(Var* v, int64_t begin, int64_t end) {
  return nn::Segment<T>(*v->tensor(), begin, end);
}
template <typename T>
T Scalar(OpKernelContext* ctx, int i) { return ctx->input(i).scalar<T>(); }

// Runs fn(begin, end) over the var's elements on the intra-op pool, `cost_ns` per element. The
// update of each element depends on that element only, so the result does not depend on the
// split. One thread updated Overfeat's 78 M fc6 weights in 223 ms (issue 16).
template <typename Fn>
void ShardElements(OpKernelContext* ctx, Var* var, int64_t cost_ns, Fn fn) {
  nn::Shard(ctx, var->tensor()->NumElements(), cost_ns, fn);
}

template <typename T>
class ApplyGradientDescentOp : public ApplyKernelBase {
 public:
  using ApplyKernelBase::ApplyKernelBase;
  void Compute(OpKernelContext* ctx) override {
    Run(ctx, 1, {1}, {2}, [&](const std::vector<Var*>& v) {
      const T alpha = Scalar<T>(ctx, 1);
      ShardElements(ctx, v[0], 1, [&](int64_t b, int64_t e) {
        Part<T>(v[0], b, e) -= alpha * nn::Segment<T>(ctx->input(2), b, e);
      });
    });
  }
};

template <typename T>
class ApplyMomentumOp : public ApplyKernelBase {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* c) : ApplyKernelBase(c) {
    c->SetStatus(c->GetAttr("use_nesterov", &nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    // inputs: var, accum, lr, grad, momentum
    Run(ctx, 2, {2, 4}, {3}, [&](const std::vector<Var*>& v) {
      const T lr = Scalar<T>(ctx, 2), momentum = Scalar<T>(ctx, 4);
      ShardElements(ctx, v[0], 2, [&](int64_t b, int64_t e) {
        auto var = Part<T>(v[0], b, e);
        auto accum = Part<T>(v[1], b, e);
        auto grad = nn::Segment<T>(ctx->input(3), b, e);
        accum = accum * momentum + grad;
        if (nesterov_) var -= grad * lr + accum * momentum * lr;
        else var -= accum * lr;
      });
    });
  }

 private:
  bool nesterov_ = false;
};

template <typename T>
class ApplyAdamOp : public ApplyKernelBase {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* c) : ApplyKernelBase(c) {
    c->SetStatus(c->GetAttr("use_nesterov", &nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    // inputs: var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad
    Run(ctx, 3, {3, 4, 5, 6, 7, 8}, {9}, [&](const std::vector<Var*>& vars) {
      const T beta1_power = Scalar<T>(ctx, 3), beta2_power = Scalar<T>(ctx, 4);
      const T lr = Scalar<T>(ctx, 5), beta1 = Scalar<T>(ctx, 6), beta2 = Scalar<T>(ctx, 7);
      const T epsilon = Scalar<T>(ctx, 8);
      const T lr_t = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
      ShardElements(ctx, vars[0], 8, [&](int64_t b, int64_t e) {
        auto var = Part<T>(vars[0], b, e);
        auto m = Part<T>(vars[1], b, e);
        auto v = Part<T>(vars[2], b, e);
        auto grad = nn::Segment<T>(ctx->input(9), b, e);
        m += (grad - m) * (T(1) - beta1);
        v += (grad.square() - v) * (T(1) - beta2);
        if (nesterov_) var -= (m * beta1 + (T(1) - beta1) * grad) * lr_t / (v.sqrt() + epsilon);
        else var -= m * lr_t / (v.sqrt() + epsilon);
      });
    });
  }

 private:
  bool nesterov_ = false;
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("ApplyGradientDescent", ApplyGradientDescentOp);
FB_REGISTER_FLOAT_KERNELS("ApplyMomentum", ApplyMomentumOp);
FB_REGISTER_FLOAT_KERNELS("ApplyAdam", ApplyAdamOp);

}  // namespace fb
