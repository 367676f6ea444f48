#include "experiments/models/batch_norm_temporary.h"
#include "engine/client/math_ops.h"
#include "engine/client/array_ops.h"
#include "engine/client/state_ops.h"
namespace fb::experiments {
Output BatchNorm(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                 int64_t channels, Activation activation, const BatchNormSpec& spec) {
  Scope bs = s.NewSubScope(name);
  Output gamma = vars->Bias(bs, "gamma", {channels});
  Output beta = vars->Bias(bs, "beta", {channels});
  Output mean = ops::Mean(bs, x, std::vector<int>{0, 1, 2}, true);
  Output centered = ops::Sub(bs, x, mean);
  Output var = ops::Mean(bs, ops::Square(bs, centered), std::vector<int>{0, 1, 2}, true);
  Output inv = ops::Rsqrt(bs, ops::Add(bs, var, ops::Const(bs, static_cast<float>(spec.epsilon))));
  Output scale = ops::Add(bs, gamma, ops::Const(bs, 1.0f));
  Output y = ops::Add(bs, ops::Mul(bs, ops::Mul(bs, centered, inv), scale), beta);
  return activation == Activation::kRelu ? ops::Relu(bs, y) : y;
}
}
