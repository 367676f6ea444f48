// GoogLeNet (Inception v1; Szegedy et al. 2015, arXiv:1409.4842) as TensorFlow's
// convnet-benchmarks defines it (soumith/convnet-benchmarks tensorflow/benchmark_googlenet.py,
// OSDI'16 Table 1): 224x224x3 images, no LRN, no auxiliary classifiers, no dropout; every conv
// has a bias and ReLU, every pool uses TensorFlow's SAME padding except the final average pool.
//   conv1 7x7/2 64 -> 112, maxpool 3/2 -> 56, conv2 1x1 64, conv3 3x3 192, maxpool 3/2 -> 28
//   inception 3a, 3b, maxpool 3/2 -> 14, 4a..4e, maxpool 3/2 -> 7, 5a, 5b (1024 channels)
//   avgpool 7x7 VALID -> 1, logits 1024 -> num_classes
// An inception module concatenates four branches: 1x1; 1x1 -> 3x3; 1x1 -> 5x5; maxpool 3/1 ->
// 1x1 (all SAME). 6,998,552 parameters and 1,582,671,872 forward multiply-adds per 224x224
// image (/work/shared/papers/osdi2016-benchmarks.md 1.5). The smallest image it accepts is
// 193x193 (five halvings rounding up to the 7x7 the average pool needs).
#include "experiments/models/feature_map.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

// Filters of an inception module's branches: 1x1; 3x3 reduce, 3x3; 5x5 reduce, 5x5; pool proj.
struct InceptionSpec {
  const char* name;
  int64_t conv1x1, reduce3x3, conv3x3, reduce5x5, conv5x5, pool_proj;
};

FeatureMap Inception(const Scope& root, VariableStore* vars, const FeatureMap& in,
                     const InceptionSpec& spec) {
  Scope s = root.NewSubScope(spec.name);
  FeatureMap b1 = ConvRelu(s, vars, "conv1x1", in, 1, 1, spec.conv1x1, "SAME");
  FeatureMap b2 = ConvRelu(s, vars, "conv3x3_reduce", in, 1, 1, spec.reduce3x3, "SAME");
  b2 = ConvRelu(s, vars, "conv3x3", b2, 3, 1, spec.conv3x3, "SAME");
  FeatureMap b3 = ConvRelu(s, vars, "conv5x5_reduce", in, 1, 1, spec.reduce5x5, "SAME");
  b3 = ConvRelu(s, vars, "conv5x5", b3, 5, 1, spec.conv5x5, "SAME");
  FeatureMap b4 = MaxPool(s, "pool", in, 3, 1, "SAME");
  b4 = ConvRelu(s, vars, "pool_proj", b4, 1, 1, spec.pool_proj, "SAME");
  return ConcatChannels(s, "concat", {b1, b2, b3, b4});
}

constexpr InceptionSpec k3[] = {{"inception_3a", 64, 96, 128, 16, 32, 32},
                                {"inception_3b", 128, 128, 192, 32, 96, 64}};
constexpr InceptionSpec k4[] = {{"inception_4a", 192, 96, 208, 16, 48, 64},
                                {"inception_4b", 160, 112, 224, 24, 64, 64},
                                {"inception_4c", 128, 128, 256, 24, 64, 64},
                                {"inception_4d", 112, 144, 288, 32, 64, 64},
                                {"inception_4e", 256, 160, 320, 32, 128, 128}};
constexpr InceptionSpec k5[] = {{"inception_5a", 256, 160, 320, 32, 128, 128},
                                {"inception_5b", 384, 192, 384, 48, 128, 128}};

Output GoogLeNetForward(const Scope& s, Output images, const ModelOptions& o, VariableStore* vars) {
  FeatureMap x = ImageFeatures(images, o.image_shape);
  x = ConvRelu(s, vars, "conv1", x, 7, 2, 64, "SAME");
  x = MaxPool(s, "pool1", x, 3, 2, "SAME");
  x = ConvRelu(s, vars, "conv2", x, 1, 1, 64, "SAME");
  x = ConvRelu(s, vars, "conv3", x, 3, 1, 192, "SAME");
  x = MaxPool(s, "pool3", x, 3, 2, "SAME");
  for (const InceptionSpec& spec : k3) x = Inception(s, vars, x, spec);
  x = MaxPool(s, "pool4", x, 3, 2, "SAME");
  for (const InceptionSpec& spec : k4) x = Inception(s, vars, x, spec);
  x = MaxPool(s, "pool5", x, 3, 2, "SAME");
  for (const InceptionSpec& spec : k5) x = Inception(s, vars, x, spec);
  x = AvgPool(s, "avgpool", x, 7, 1, "VALID");
  int64_t width = 0;
  Output flat = Flatten(s, "flatten", x, &width);
  if (!s.ok()) return Output();
  return Dense(s, vars, "logits", flat, width, o.num_classes, Activation::kNone);
}

FB_REGISTER_MODEL("googlenet", GoogLeNetForward, ModelDefaults{{224, 224, 3}, 1000});

}  // namespace
}  // namespace fb::experiments
