#include "experiments/models/layers.h"

#include <algorithm>
#include <cmath>

#include "engine/client/math_ops.h"
#include "engine/client/random_ops.h"
#include "engine/client/state_ops.h"

namespace fb::experiments {

Output VariableStore::Add(const Scope& s, const std::string& name, const TensorShape& shape,
                          Output value) {
  Output var = ops::Variable(s.WithOpName(name), shape, DataType::kFloat);
  initializers_.push_back(ops::Assign(s.WithOpName(name + "/Assign"), var, value));
  variables_.push_back(var);
  // Every use reads the value through one Identity (TensorFlow's "<var>/read"): its snapshot is
  // taken before the forward pass, so the step's update (copy on write) never races with a
  // later read by the backward pass.
  return ops::Identity(s.WithOpName(name + "/read"), var);
}

VariableStore VariableStore::Reusing(std::vector<Output> variables,
                                     std::vector<Output> non_trainable) {
  VariableStore store(0);
  store.reusing_ = true;
  store.reuse_ = std::move(variables);
  store.reuse_non_trainable_ = std::move(non_trainable);
  return store;
}

Output VariableStore::NextGiven(const Scope& s, const std::string& name, const TensorShape& shape,
                                const std::vector<Output>& given, size_t index) {
  const std::string full_name = s.prefix() + name;
  if (index >= given.size()) {
    s.UpdateStatus(InvalidArgument("the model asks for Variable '", full_name, "' (number ",
                                   index + 1, ") but only ", given.size(), " were given"));
    return Output();
  }
  TensorShape has;
  if (Node* n = given[index].node(); n && GetNodeAttr(n->def().attrs, "shape", &has).ok() &&
                                     has != shape) {
    s.UpdateStatus(InvalidArgument("Variable '", full_name, "' has shape ", shape.DebugString(),
                                   " but the given Variable ", n->name(), " has ",
                                   has.DebugString()));
    return Output();
  }
  return given[index];
}

Output VariableStore::Reuse(const Scope& s, const std::string& name, const TensorShape& shape) {
  Output var = NextGiven(s, name, shape, reuse_, variables_.size());
  if (!var.valid()) return Output();
  variables_.push_back(var);
  return ops::Identity(s.WithOpName(name + "/read"), var);
}

Status VariableStore::CreateFromSpecs(const Scope& root, const std::vector<VariableSpec>& specs,
                                      const std::vector<VariableSpec>& non_trainable) {
  for (const VariableSpec& v : specs) {
    if (v.zeros) {
      Filled(root, v.name, v.shape, v.fill);
    } else {
      Weight(root, v.name, v.shape, v.fan_in, v.fan_out, v.init);
    }
  }
  for (const VariableSpec& v : non_trainable) NonTrainable(root, v.name, v.shape, v.fill);
  return root.status();
}

Output VariableStore::Weight(const Scope& s, const std::string& name, const TensorShape& shape,
                             int64_t fan_in, int64_t fan_out, InitKind init) {
  specs_.push_back({s.prefix() + name, shape, false, fan_in, fan_out, init});
  if (reusing_) return Reuse(s, name, shape);
  const double limit = init == InitKind::kHeUniform
                           ? std::sqrt(6.0 / static_cast<double>(fan_in))
                           : std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  Scope init_scope = s.NewSubScope(name + "_init");
  Output u = ops::RandomUniform(init_scope, shape.dim_sizes(), DataType::kFloat, seed_,
                                next_stream_++);
  // U(0, 1) * 2a - a
  Output scaled = ops::Sub(init_scope, ops::Mul(init_scope, u, ops::Const(init_scope, float(2 * limit))),
                           ops::Const(init_scope, float(limit)));
  return Add(s, name, shape, scaled);
}

Output VariableStore::Bias(const Scope& s, const std::string& name, const TensorShape& shape) {
  return Filled(s, name, shape, 0.0f);
}

namespace {
Tensor FilledTensor(const TensorShape& shape, float value) {
  Tensor t(DataType::kFloat, shape);
  std::fill(t.data<float>(), t.data<float>() + t.NumElements(), value);
  return t;
}
}  // namespace

Output VariableStore::Filled(const Scope& s, const std::string& name, const TensorShape& shape,
                             float value) {
  VariableSpec spec{s.prefix() + name, shape, true};
  spec.fill = value;
  specs_.push_back(spec);
  if (reusing_) return Reuse(s, name, shape);
  return Add(s, name, shape, ops::Const(s.NewSubScope(name + "_init"), FilledTensor(shape, value)));
}

Output VariableStore::NonTrainable(const Scope& s, const std::string& name,
                                   const TensorShape& shape, float value) {
  VariableSpec spec{s.prefix() + name, shape, true};
  spec.fill = value;
  non_trainable_specs_.push_back(spec);
  if (reusing_) {
    Output var = NextGiven(s, name, shape, reuse_non_trainable_, non_trainable_.size());
    if (var.valid()) non_trainable_.push_back(var);
    return var;
  }
  Output var = ops::Variable(s.WithOpName(name), shape, DataType::kFloat);
  initializers_.push_back(ops::Assign(s.WithOpName(name + "/Assign"), var,
                                      ops::Const(s.NewSubScope(name + "_init"),
                                                 FilledTensor(shape, value))));
  non_trainable_.push_back(var);
  return var;
}

namespace {
Output Activate(const Scope& s, Output x, Activation activation) {
  return activation == Activation::kRelu ? ops::Relu(s, x) : x;
}
InitKind InitFor(Activation activation) {
  return activation == Activation::kRelu ? InitKind::kHeUniform : InitKind::kGlorotUniform;
}
}  // namespace

Output Dense(const Scope& s, VariableStore* vars, const std::string& name, Output x, int64_t in,
             int64_t units, Activation activation) {
  Scope ls = s.NewSubScope(name);
  Output w = vars->Weight(ls, "weights", {in, units}, in, units, InitFor(activation));
  Output b = vars->Bias(ls, "biases", {units});
  return Activate(ls, ops::BiasAdd(ls, ops::MatMul(ls, x, w), b), activation);
}

Output Conv2DLayer(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                   const Conv2DSpec& spec, Activation activation) {
  Scope ls = s.NewSubScope(name);
  const int64_t area = spec.kernel_rows * spec.kernel_cols;
  Output w = vars->Weight(ls, "weights", {spec.kernel_rows, spec.kernel_cols, spec.in, spec.filters},
                          area * spec.in, area * spec.filters, InitFor(activation));
  Output y = ops::Conv2D(ls, x, w, {spec.stride_rows, spec.stride_cols}, spec.padding);
  if (spec.bias) y = ops::BiasAdd(ls, y, vars->Bias(ls, "biases", {spec.filters}));
  return Activate(ls, y, activation);
}

Output Conv2DLayer(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                   int64_t kernel, int64_t in, int64_t filters, const std::string& padding,
                   Activation activation) {
  return Conv2DLayer(s, vars, name, x, Conv2DSpec{kernel, kernel, 1, 1, in, filters, padding, true},
                     activation);
}

}  // namespace fb::experiments
