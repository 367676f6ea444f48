#include "experiments/models/batch_norm.h"

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"

namespace fb::experiments {
namespace {

// ref -= (ref - value) * (1 - decay), named "<ref>_update".
Output MovingAverageUpdate(const Scope& s, const std::string& name, Output ref, Output value,
                           double decay) {
  Scope us = s.NewSubScope(name + "_update");
  Output current = ops::Identity(us, ref);
  Output delta =
      ops::Mul(us, ops::Sub(us, current, value), ops::Const(us, static_cast<float>(1.0 - decay)));
  return ops::AssignSub(s.WithOpName(name + "_update"), ref, delta);
}

}  // namespace

Output BatchNorm(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                 int64_t channels, Activation activation, const BatchNormSpec& spec) {
  Scope ls = s.NewSubScope(name);
  if (!(spec.decay >= 0 && spec.decay <= 1) || !(spec.epsilon >= 0)) {
    ls.UpdateStatus(InvalidArgument("BatchNorm '", ls.prefix(),
                                    "': decay must be in [0, 1] and "
                                    "epsilon >= 0, got decay ",
                                    spec.decay, ", epsilon ", spec.epsilon));
    return Output();
  }
  const TensorShape shape({channels});
  Output gamma = spec.scale ? vars->Filled(ls, "gamma", shape, 1.0f)
                           : ops::Const(ls.WithOpName("gamma"),
                                        std::vector<float>(static_cast<size_t>(channels), 1.0f),
                                        shape);
  Output beta = vars->Bias(ls, "beta", shape);
  Output moving_mean = vars->NonTrainable(ls, "moving_mean", shape, 0.0f);
  Output moving_variance = vars->NonTrainable(ls, "moving_variance", shape, 1.0f);
  if (!ls.ok()) return Output();
  ops::FusedBatchNormAttrs attrs;
  attrs.epsilon = static_cast<float>(spec.epsilon);
  attrs.is_training = vars->training();
  Output y;
  if (attrs.is_training) {
    Output empty = ops::Const(ls, Tensor(DataType::kFloat, TensorShape({0})));
    auto bn =
        ops::FusedBatchNorm(ls.WithOpName("FusedBatchNorm"), x, gamma, beta, empty, empty, attrs);
    vars->AddUpdate(MovingAverageUpdate(ls, "moving_mean", moving_mean, bn.batch_mean, spec.decay));
    vars->AddUpdate(
        MovingAverageUpdate(ls, "moving_variance", moving_variance, bn.batch_variance, spec.decay));
    y = bn.y;
  } else {
    y = ops::FusedBatchNorm(ls.WithOpName("FusedBatchNorm"), x, gamma, beta,
                            ops::Identity(ls.WithOpName("moving_mean/read"), moving_mean),
                            ops::Identity(ls.WithOpName("moving_variance/read"), moving_variance),
                            attrs)
            .y;
  }
  return activation == Activation::kRelu ? ops::Relu(ls, y) : y;
}

}  // namespace fb::experiments
