// OverFeat, "fast" model (Sermanet et al. 2014, arXiv:1312.6229) as TensorFlow's
// convnet-benchmarks defines it (soumith/convnet-benchmarks tensorflow/benchmark_overfeat.py,
// OSDI'16 Table 1): 231x231x3 images, no dropout.
//   conv1 11x11/4 96 VALID -> 56, maxpool 2/2 VALID -> 28
//   conv2 5x5 256 VALID -> 24, maxpool 2/2 -> 12
//   conv3 3x3 512, conv4 3x3 1024, conv5 3x3 1024 (SAME), maxpool 2/2 -> 6
//   fc6 36864 -> 3072, fc7 3072 -> 4096 (ReLU), logits 4096 -> num_classes
// Every conv has a bias and ReLU. 145,920,872 parameters and 2,801,403,904 forward
// multiply-adds per 231x231 image (/work/shared/papers/osdi2016-benchmarks.md 1.5). The
// smallest image it accepts is 71x71 (conv1 16 -> 8 -> conv2 4 -> 2 -> 1).
#include "experiments/models/feature_map.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

Output OverfeatForward(const Scope& s, Output images, const ModelOptions& o, VariableStore* vars) {
  FeatureMap x = ImageFeatures(images, o.image_shape);
  x = ConvRelu(s, vars, "conv1", x, 11, 4, 96, "VALID");
  x = MaxPool(s, "pool1", x, 2, 2, "VALID");
  x = ConvRelu(s, vars, "conv2", x, 5, 1, 256, "VALID");
  x = MaxPool(s, "pool2", x, 2, 2, "VALID");
  x = ConvRelu(s, vars, "conv3", x, 3, 1, 512, "SAME");
  x = ConvRelu(s, vars, "conv4", x, 3, 1, 1024, "SAME");
  x = ConvRelu(s, vars, "conv5", x, 3, 1, 1024, "SAME");
  x = MaxPool(s, "pool5", x, 2, 2, "VALID");
  return FullyConnectedHead(s, vars, x, 3072, 4096, o.num_classes);
}

FB_REGISTER_MODEL("overfeat", OverfeatForward, ModelDefaults{{231, 231, 3}, 1000});

}  // namespace
}  // namespace fb::experiments
