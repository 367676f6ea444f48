// LeNet-5 (LeCun, Bottou, Bengio and Haffner 1998) in the variant of issue 3, for 28x28 inputs:
//   conv1 5x5x6 SAME + ReLU -> [28,28,6], maxpool 2 -> [14,14,6]
//   conv2 5x5x16 VALID + ReLU -> [10,10,16], maxpool 2 -> [5,5,16] = 400
//   fc1 120 + ReLU, fc2 84 + ReLU, logits num_classes.
#include "engine/client/array_ops.h"
#include "experiments/models/layers.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

// Output size of a 2x2/2 max-pool after a conv of `kernel` with `padding` (stride 1).
int64_t PooledSize(int64_t in, int64_t kernel, bool same) {
  return (same ? in : in - kernel + 1) / 2;
}

Output LeNetForward(const Scope& s, Output images, const ModelOptions& o, VariableStore* vars) {
  const int64_t rows = o.image_shape[0], cols = o.image_shape[1], channels = o.image_shape[2];
  Output x = Conv2DLayer(s, vars, "conv1", images, 5, channels, 6, "SAME", Activation::kRelu);
  x = ops::MaxPool(s.WithOpName("pool1"), x, {2, 2}, {2, 2}, "VALID");
  x = Conv2DLayer(s, vars, "conv2", x, 5, 6, 16, "VALID", Activation::kRelu);
  x = ops::MaxPool(s.WithOpName("pool2"), x, {2, 2}, {2, 2}, "VALID");
  const int64_t flat = PooledSize(PooledSize(rows, 5, true), 5, false) *
                       PooledSize(PooledSize(cols, 5, true), 5, false) * 16;
  x = ops::Reshape(s.WithOpName("flatten"), x, {int64_t{-1}, flat});
  x = Dense(s, vars, "fc1", x, flat, 120, Activation::kRelu);
  x = Dense(s, vars, "fc2", x, 120, 84, Activation::kRelu);
  return Dense(s, vars, "logits", x, 84, o.num_classes, Activation::kNone);
}

FB_REGISTER_MODEL("lenet", LeNetForward);

}  // namespace
}  // namespace fb::experiments
