// AlexNet in the "One Weird Trick" variant (Krizhevsky 2014, arXiv:1404.5997; cuda-convnet2
// layers-imagenet-1gpu.cfg) as TensorFlow's convnet-benchmarks defines it (soumith/
// convnet-benchmarks tensorflow/benchmark_alexnet.py, OSDI'16 Table 1): 227x227x3 images, whose
// VALID first conv gives the 55x55 of the 224-pixel original; no LRN, no dropout.
//   conv1 11x11/4 64 VALID -> 55, maxpool 3/2 VALID -> 27
//   conv2 5x5 192 SAME, maxpool 3/2 -> 13
//   conv3 3x3 384, conv4 3x3 256, conv5 3x3 256 (SAME), maxpool 3/2 -> 6
//   fc6 9216 -> 4096, fc7 4096 -> 4096 (ReLU), logits 4096 -> num_classes
// Every conv has a bias and ReLU. 61,100,840 parameters and 714,188,480 forward multiply-adds
// per 227x227 image (/work/shared/papers/osdi2016-benchmarks.md 1.5). The smallest image it
// accepts is 67x67 (conv1 15 -> 7 -> 3 -> 1).
#include "experiments/models/feature_map.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

Output AlexNetForward(const Scope& s, Output images, const ModelOptions& o, VariableStore* vars) {
  FeatureMap x = ImageFeatures(images, o.image_shape);
  x = ConvRelu(s, vars, "conv1", x, 11, 4, 64, "VALID");
  x = MaxPool(s, "pool1", x, 3, 2, "VALID");
  x = ConvRelu(s, vars, "conv2", x, 5, 1, 192, "SAME");
  x = MaxPool(s, "pool2", x, 3, 2, "VALID");
  x = ConvRelu(s, vars, "conv3", x, 3, 1, 384, "SAME");
  x = ConvRelu(s, vars, "conv4", x, 3, 1, 256, "SAME");
  x = ConvRelu(s, vars, "conv5", x, 3, 1, 256, "SAME");
  x = MaxPool(s, "pool5", x, 3, 2, "VALID");
  return FullyConnectedHead(s, vars, x, 4096, 4096, o.num_classes);
}

FB_REGISTER_MODEL("alexnet", AlexNetForward, ModelDefaults{{227, 227, 3}, 1000});

}  // namespace
}  // namespace fb::experiments
