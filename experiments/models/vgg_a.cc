// VGG model A (VGG-11; Simonyan and Zisserman 2015, arXiv:1409.1556, Table 1 column A), the
// "OxfordNet" of TensorFlow's convnet-benchmarks (soumith/convnet-benchmarks
// tensorflow/benchmark_vgg.py, OSDI'16 Table 1): 224x224x3 images, no dropout.
//   conv1 64, pool, conv2 128, pool, conv3 256 x2, pool, conv4 512 x2, pool, conv5 512 x2, pool
//   (every conv 3x3 stride 1 SAME with bias and ReLU; pool = maxpool 2/2 VALID) -> 7x7x512
//   fc6 25088 -> 4096, fc7 4096 -> 4096 (ReLU), logits 4096 -> num_classes
// 132,863,336 parameters and 7,609,090,048 forward multiply-adds per 224x224 image
// (/work/shared/papers/osdi2016-benchmarks.md 1.5; torchvision vgg11: 132.86 M, 7.61 G).
// The smallest image it accepts is 32x32 (five halvings to 1x1).
#include "experiments/models/feature_map.h"
#include "experiments/models/models.h"

namespace fb::experiments {
namespace {

// Convolutions per block and their filters (VGG configuration A).
struct VggBlock {
  int convs;
  int64_t filters;
};
constexpr VggBlock kBlocksA[] = {{1, 64}, {1, 128}, {2, 256}, {2, 512}, {2, 512}};

Output VggAForward(const Scope& s, Output images, const ModelOptions& o, VariableStore* vars) {
  FeatureMap x = ImageFeatures(images, o.image_shape);
  int block_index = 1;
  for (const VggBlock& block : kBlocksA) {
    const std::string prefix = "conv" + std::to_string(block_index);
    for (int i = 0; i < block.convs; ++i) {
      const std::string name = block.convs == 1 ? prefix : prefix + "_" + std::to_string(i + 1);
      x = ConvRelu(s, vars, name, x, 3, 1, block.filters, "SAME");
    }
    x = MaxPool(s, "pool" + std::to_string(block_index), x, 2, 2, "VALID");
    ++block_index;
  }
  return FullyConnectedHead(s, vars, x, 4096, 4096, o.num_classes);
}

FB_REGISTER_MODEL("vgg_a", VggAForward, ModelDefaults{{224, 224, 3}, 1000});

}  // namespace
}  // namespace fb::experiments
