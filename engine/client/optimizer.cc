#include "engine/client/optimizer.h"

#include <cstring>

#include "engine/autodiff/gradients.h"
#include "engine/client/state_ops.h"

namespace fb {

namespace ops {

Output ApplyGradientDescent(const Scope& s, Output var, Output alpha, Output delta) {
  return Op(s, "ApplyGradientDescent", {var, alpha, delta});
}

Output ApplyMomentum(const Scope& s, Output var, Output accum, Output lr, Output grad,
                     Output momentum, bool use_nesterov) {
  return Op(s, "ApplyMomentum", {var, accum, lr, grad, momentum},
            {{"use_nesterov", use_nesterov}});
}

Output ApplyAdam(const Scope& s, Output var, Output m, Output v, Output beta1_power,
                 Output beta2_power, Output lr, Output beta1, Output beta2, Output epsilon,
                 Output grad, bool use_nesterov) {
  return Op(s, "ApplyAdam",
            {var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad},
            {{"use_nesterov", use_nesterov}});
}

Node* Group(const Scope& s, const std::vector<Output>& deps) {
  return NoOp(s.WithControlDependencies(deps));
}

Node* Group(const Scope& s, const std::vector<Node*>& deps) {
  return NoOp(s.WithControlDependencies(deps));
}

}  // namespace ops

std::vector<Output> Concat(std::vector<Output> a, const std::vector<Output>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

namespace {

// InvalidArgument unless `var` is a Variable's Ref output.
Status CheckVariable(const Output& var) {
  if (!var.valid()) return InvalidArgument("an entry of var_list is invalid");
  if (!var.node()->output_is_ref(var.index()))
    return InvalidArgument("var_list entry '", var.name(), "' (", var.node()->op(),
                           ") is not a Variable (a Ref output)");
  return Status::OK();
}

// Adds a node with `inputs` placed on the device requested for `colocate_with`.
Output AddColocated(const Scope& scope, const std::string& name, const std::string& op,
                    const std::vector<Output>& inputs, const AttrMap& attrs,
                    const Output& colocate_with) {
  if (!scope.ok()) return Output();
  NodeBuilder b(scope.graph()->NewName(name), op);
  for (const Output& in : inputs) b.Input(in);
  for (const auto& [k, v] : attrs) b.Attr(k, v);
  b.Device(colocate_with.node()->requested_device());
  auto n = b.Finalize(scope.graph());
  if (!n.ok()) {
    scope.UpdateStatus(n.status());
    return Output();
  }
  return Output(*n, 0);
}

}  // namespace

Node* Optimizer::Minimize(const Scope& scope, Output loss, const std::vector<Output>& var_list) {
  if (!scope.ok()) return nullptr;
  std::vector<NodeOut> xs;
  for (const Output& var : var_list) {
    Status st = CheckVariable(var);
    if (!st.ok()) {
      scope.UpdateStatus(st.WithPrefix(name_ + ".Minimize: "));
      return nullptr;
    }
    xs.push_back(var);
  }
  if (!loss.valid()) {
    scope.UpdateStatus(InvalidArgument(name_, ".Minimize: loss is invalid"));
    return nullptr;
  }
  std::vector<NodeOut> grads;
  Status st = AddSymbolicGradients(scope.graph(), {loss}, xs, {}, &grads, "gradients",
                                   /*gate_gradients=*/true);
  if (!st.ok()) {
    scope.UpdateStatus(st);
    return nullptr;
  }
  std::vector<std::pair<Output, Output>> grads_and_vars;
  for (size_t i = 0; i < grads.size(); ++i) grads_and_vars.emplace_back(grads[i], var_list[i]);
  return ApplyGradients(scope, grads_and_vars);
}

Node* Optimizer::ApplyGradients(const Scope& scope,
                                const std::vector<std::pair<Output, Output>>& grads_and_vars) {
  if (!scope.ok()) return nullptr;
  Scope sub = scope.NewSubScope(name_);
  std::vector<Output> vars;
  for (const auto& [grad, var] : grads_and_vars) {
    Status st = CheckVariable(var);
    if (!st.ok()) {
      scope.UpdateStatus(st.WithPrefix(name_ + ": "));
      return nullptr;
    }
    if (grad.valid()) vars.push_back(var);  // no gradient: nothing to apply
  }
  Prepare(sub, vars);
  std::vector<Output> updates;
  for (const auto& [grad, var] : grads_and_vars)
    if (grad.valid() && scope.ok())
      updates.push_back(ApplyDense(sub.NewSubScope("update_" + var.node()->name()), var, grad));
  std::vector<Output> extra = Finish(sub, updates);
  if (!scope.ok()) return nullptr;
  return ops::Group(scope.WithOpName(name_), Concat(updates, extra));
}

Output Optimizer::ScalarConst(const Scope& scope, DataType dtype, double value) {
  if (dtype == DataType::kDouble) return ops::Const(scope, Tensor::Scalar<double>(value));
  return ops::Const(scope, Tensor::Scalar<float>(static_cast<float>(value)));
}

Output Optimizer::ZeroSlot(const Scope& scope, Output var, const std::string& slot) {
  if (!scope.ok()) return Output();
  const std::string base = var.node()->name() + "/" + slot;
  TensorShape shape = UnknownRankShape();
  if (var.node()->op() == "Variable") {
    Status st = GetNodeAttr(var.node()->def().attrs, "shape", &shape);
    if (!st.ok()) shape = UnknownRankShape();
  }
  Output zeros;
  if (!IsUnknownRank(shape) && shape.IsFullyDefined()) {
    // Fill(shape, 0) as TensorFlow's zeros initializer: the zeros are made when `init` runs
    // and freed once assigned, instead of a Const of the Variable's size that the GraphDef and
    // every executor holding the Const kernel keep for the Session's lifetime (Momentum and
    // Adam on overfeat: 557 MiB per slot).
    Tensor dims(DataType::kInt64, TensorShape({shape.dims()}));
    for (int i = 0; i < shape.dims(); ++i) dims.data<int64_t>()[i] = shape.dim_size(i);
    Tensor zero(var.type(), TensorShape{});
    std::memset(zero.raw_data(), 0, zero.ByteSize());
    // Colocated with the Variable (TensorFlow's colocate_with(primary)): the zeros are made
    // where the slot lives, never sent.
    const std::vector<std::string> loc = {"loc:@" + var.node()->name()};
    Output d = AddColocated(scope, base + "/Initializer/zeros/shape_as_tensor", "Const", {},
                            {{"value", dims}, {"dtype", DataType::kInt64}, {"_class", loc}}, var);
    Output z = AddColocated(scope, base + "/Initializer/zeros/Const", "Const", {},
                            {{"value", zero}, {"dtype", var.type()}, {"_class", loc}}, var);
    if (!d.valid() || !z.valid()) return Output();
    zeros = AddColocated(scope, base + "/Initializer/zeros", "Fill", {d, z},
                         {{"T", var.type()}, {"index_type", DataType::kInt64}, {"_class", loc}},
                         var);
  } else {
    zeros = AddColocated(scope, base + "/Initializer/zeros", "ZerosLike", {var}, {}, var);
  }
  Output slot_var = AddColocated(scope, base, "Variable", {},
                                 {{"shape", shape}, {"dtype", var.type()}}, var);
  if (!slot_var.valid() || !zeros.valid()) return Output();
  initializers_.push_back(AddColocated(scope, base + "/Assign", "Assign", {slot_var, zeros},
                                       {{"validate_shape", false}}, var));
  return slot_var;
}

Output Optimizer::ScalarVariable(const Scope& scope, const std::string& name, DataType dtype,
                                 double value) {
  Scope sub = scope.NewSubScope(name);
  Output var = ops::Variable(scope.WithOpName(name), TensorShape{}, dtype);
  Output init = ScalarConst(sub.WithOpName("Initializer"), dtype, value);
  if (var.valid() && init.valid())
    initializers_.push_back(ops::Assign(sub.WithOpName("Assign"), var, init));
  return var;
}

Output GradientDescentOptimizer::ApplyDense(const Scope& scope, Output var, Output grad) {
  Output lr = ScalarConst(scope.WithOpName("learning_rate"), var.type(), learning_rate_);
  return ops::ApplyGradientDescent(scope, var, lr, grad);
}

Output MomentumOptimizer::ApplyDense(const Scope& scope, Output var, Output grad) {
  Output accum = ZeroSlot(scope, var, "Momentum");
  Output lr = ScalarConst(scope.WithOpName("learning_rate"), var.type(), learning_rate_);
  Output momentum = ScalarConst(scope.WithOpName("momentum"), var.type(), momentum_);
  return ops::ApplyMomentum(scope, var, accum, lr, grad, momentum, use_nesterov_);
}

void AdamOptimizer::Prepare(const Scope& scope, const std::vector<Output>& vars) {
  if (vars.empty()) return;
  DataType dt = beta1_power_.valid() ? beta1_power_.type() : vars[0].type();
  for (const Output& var : vars)
    if (var.type() != dt) {
      scope.UpdateStatus(InvalidArgument("Adam: variable '", var.name(), "' is ",
                                         DataTypeString(var.type()), " but '", vars[0].name(),
                                         "' is ", DataTypeString(dt),
                                         "; use one AdamOptimizer per dtype"));
      return;
    }
  if (beta1_power_.valid()) return;
  beta1_power_ = ScalarVariable(scope, "beta1_power", dt, beta1_);
  beta2_power_ = ScalarVariable(scope, "beta2_power", dt, beta2_);
}

Output AdamOptimizer::ApplyDense(const Scope& scope, Output var, Output grad) {
  Output m = ZeroSlot(scope, var, "Adam");
  Output v = ZeroSlot(scope, var, "Adam_1");
  DataType dt = var.type();
  return ops::ApplyAdam(scope, var, m, v, beta1_power_, beta2_power_,
                        ScalarConst(scope.WithOpName("lr"), dt, lr_),
                        ScalarConst(scope.WithOpName("beta1"), dt, beta1_),
                        ScalarConst(scope.WithOpName("beta2"), dt, beta2_),
                        ScalarConst(scope.WithOpName("epsilon"), dt, epsilon_), grad);
}

std::vector<Output> AdamOptimizer::Finish(const Scope& scope, const std::vector<Output>& updates) {
  if (!beta1_power_.valid()) return {};
  // After this step's updates have read them: beta_power *= beta (TensorFlow's _finish).
  Scope after = scope.WithControlDependencies(updates);
  std::vector<Output> out;
  for (auto [power, beta, name] : {std::tuple{beta1_power_, beta1_, "beta1"},
                                   std::tuple{beta2_power_, beta2_, "beta2"}}) {
    Output b = ScalarConst(after.WithOpName(std::string(name)), power.type(), beta);
    Output product = ops::Op(after, "Mul", {power, b});
    out.push_back(ops::Assign(after.WithOpName(std::string("update_") + name + "_power"), power,
                              product));
  }
  return out;
}

}  // namespace fb
