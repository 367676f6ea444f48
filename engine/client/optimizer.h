#pragma once
// Client optimizers (whitepaper 4.1: the gradient nodes AddSymbolicGradients adds are followed
// by update nodes that apply them to the parameters), after TensorFlow's tf.train optimizers:
//
//   Scope root = Scope::NewRootScope();
//   ... build `loss` from Variables w, b and their initializers init_w, init_b (Assign ops) ...
//   MomentumOptimizer opt(0.01, 0.9);
//   Node* train = opt.Minimize(root, loss, {w, b});          // a NoOp target
//   Node* init = ops::Group(root.WithOpName("init"), Concat({init_w, init_b}, opt.initializers()));
//   session->Run({}, {}, {"init"}, nullptr);                  // once
//   session->Run(feeds, {loss.name()}, {"<train name>"}, &out);  // per step
//
// Optimizers create slot Variables (Momentum: one accumulator per variable; Adam: m and v per
// variable plus the scalars beta1_power and beta2_power) named "<var>/<Optimizer>[_k]" or
// "<Optimizer>/beta1_power". Like TensorFlow's global_variables_initializer, nothing runs their
// initializers implicitly: initializers() lists the Assign ops that set them (zeros, or beta1
// and beta2 for the powers) and the caller runs them once, typically grouped with the model's
// own initializers by ops::Group into an `init` target.
//
// Errors stick to the Scope (Scope::status()): a var_list entry that is not a Variable (a Ref
// output), mixed dtypes within one Adam optimizer, or a loss whose gradient cannot be built
// (AddSymbolicGradients' NotFound naming the op). Not thread-safe: build from one thread.
#include <map>
#include <string>
#include <vector>

#include "engine/client/scope.h"

namespace fb {

namespace ops {
// The update ops (engine/ops/training_ops.cc); var (and accum, m, v) are Variable Refs, the
// other arguments have var's dtype; scalars for lr/alpha/momentum/beta*/epsilon.
Output ApplyGradientDescent(const Scope& s, Output var, Output alpha, Output delta);
Output ApplyMomentum(const Scope& s, Output var, Output accum, Output lr, Output grad,
                     Output momentum, bool use_nesterov = false);
Output ApplyAdam(const Scope& s, Output var, Output m, Output v, Output beta1_power,
                 Output beta2_power, Output lr, Output beta1, Output beta2, Output epsilon,
                 Output grad, bool use_nesterov = false);
// A NoOp (named by the scope) that runs after every node of `deps`: tf.group.
Node* Group(const Scope& s, const std::vector<Output>& deps);
Node* Group(const Scope& s, const std::vector<Node*>& deps);
}  // namespace ops

// Concatenation helper for initializer lists.
std::vector<Output> Concat(std::vector<Output> a, const std::vector<Output>& b);

class Optimizer {
 public:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  virtual ~Optimizer() = default;

  // Adds d(loss)/d(var) for every var (AddSymbolicGradients under "gradients", gated per op as
  // TensorFlow's GATE_OP: no update runs before every gradient of the op that produced its
  // gradient, which may still read the variable) and the update ops, and returns a NoOp named
  // after the optimizer that runs them all: the training target.
  // `loss` is usually a scalar (a non-scalar loss is summed). nullptr on error (see above).
  Node* Minimize(const Scope& scope, Output loss, const std::vector<Output>& var_list);
  // The second half of Minimize, for callers that transform gradients first: one update per
  // (gradient, variable) pair, grouped under the returned NoOp.
  Node* ApplyGradients(const Scope& scope, const std::vector<std::pair<Output, Output>>& grads_and_vars);

  // Assign ops initializing every slot Variable created so far (run them once before training).
  const std::vector<Output>& initializers() const { return initializers_; }
  const std::string& name() const { return name_; }

 protected:
  // Called once per ApplyGradients before any ApplyDense with the variables to update, under
  // the optimizer's name scope (Adam creates its beta powers here). Default: nothing.
  virtual void Prepare(const Scope& scope, const std::vector<Output>& vars) {}
  // Adds the update of `var` by `grad` (same dtype and shape).
  virtual Output ApplyDense(const Scope& scope, Output var, Output grad) = 0;
  // Called after all ApplyDense calls with their outputs; returns extra nodes the train op must
  // also wait for (Adam's beta power updates). Default: none.
  virtual std::vector<Output> Finish(const Scope& scope, const std::vector<Output>& updates) {
    return {};
  }
  // A Variable shaped like `var` named "<var>/<slot>", initialized to zeros (or `value`).
  Output ZeroSlot(const Scope& scope, Output var, const std::string& slot);
  // A scalar Variable "<optimizer>/<name>" of `dtype` initialized to `value`.
  Output ScalarVariable(const Scope& scope, const std::string& name, DataType dtype, double value);
  // A scalar constant of `dtype`.
  static Output ScalarConst(const Scope& scope, DataType dtype, double value);

 private:
  std::string name_;
  std::vector<Output> initializers_;
};

// var -= learning_rate * grad.
class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(double learning_rate)
      : Optimizer("GradientDescent"), learning_rate_(learning_rate) {}

 protected:
  Output ApplyDense(const Scope& scope, Output var, Output grad) override;

 private:
  double learning_rate_;
};

// accum = momentum * accum + grad; var -= learning_rate * accum (or Nesterov's variant; see
// ApplyMomentum in engine/ops/training_ops.cc). One "<var>/Momentum" accumulator per variable.
class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(double learning_rate, double momentum, bool use_nesterov = false)
      : Optimizer("Momentum"),
        learning_rate_(learning_rate),
        momentum_(momentum),
        use_nesterov_(use_nesterov) {}

 protected:
  Output ApplyDense(const Scope& scope, Output var, Output grad) override;

 private:
  double learning_rate_, momentum_;
  bool use_nesterov_;
};

// Adam (Kingma & Ba 2015) with TensorFlow's defaults and update (ApplyAdam): slots
// "<var>/Adam" (m) and "<var>/Adam_1" (v), scalars "Adam/beta1_power" and "Adam/beta2_power"
// multiplied by beta1 and beta2 after each step's updates.
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(double learning_rate = 0.001, double beta1 = 0.9, double beta2 = 0.999,
                         double epsilon = 1e-8)
      : Optimizer("Adam"), lr_(learning_rate), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {}

 protected:
  void Prepare(const Scope& scope, const std::vector<Output>& vars) override;
  Output ApplyDense(const Scope& scope, Output var, Output grad) override;
  std::vector<Output> Finish(const Scope& scope, const std::vector<Output>& updates) override;

 private:
  double lr_, beta1_, beta2_, epsilon_;
  Output beta1_power_, beta2_power_;
};

}  // namespace fb
