#pragma once
// TEMPORARY stand-in (h-inception only) for h-bn's experiments/models/batch_norm.h, with the same
// signature, until that branch is merged: training-mode batch normalization composed from
// Mean/Sub/Mul/Rsqrt, gamma = 1 + a zero-initialised trainable Variable, no moving statistics.
// Delete this file and include experiments/models/batch_norm.h once h-bn is merged.
#include <string>

#include "experiments/models/layers.h"

namespace fb::experiments {

struct BatchNormSpec {
  double epsilon = 1e-5;
  double decay = 0.9;
};

Output BatchNorm(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                 int64_t channels, Activation activation, const BatchNormSpec& spec = {});

}  // namespace fb::experiments
