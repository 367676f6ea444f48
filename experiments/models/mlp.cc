// The multilayer perceptron of issue 3: 784-256-10 by default (ModelOptions::hidden_units).
#include "engine/client/array_ops.h"
#include "experiments/models/layers.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

Output MlpForward(const Scope& s, Output images, const ModelOptions& o, VariableStore* vars) {
  int64_t width = 1;
  for (int64_t d : o.image_shape) width *= d;
  Output x = ops::Reshape(s.WithOpName("flatten"), images, {int64_t{-1}, width});
  for (size_t i = 0; i < o.hidden_units.size(); ++i) {
    x = Dense(s, vars, "hidden" + std::to_string(i + 1), x, width, o.hidden_units[i],
              Activation::kRelu);
    width = o.hidden_units[i];
  }
  return Dense(s, vars, "logits", x, width, o.num_classes, Activation::kNone);
}

FB_REGISTER_MODEL("mlp", MlpForward);

}  // namespace
}  // namespace fb::experiments
