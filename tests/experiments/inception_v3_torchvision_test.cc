// inception_v3 against torchvision 0.14 (Debian's /usr/bin/python3 with torch and torchvision):
// the model's initial weights, a batch of two images and the results of one training-form step
// are written as .npy files, and tests/experiments/inception_v3_torchvision.py loads the weights
// into torchvision.models.inception_v3(aux_logits=False, transform_input=False) and compares
// logits, every gradient and the batch-norm moving statistics (see the script for tolerances).
// This checks the branch widths, the concatenation orders, the factorized convs' padding, the
// count_include_pad average pools and batch normalization end to end. Without torch and
// torchvision the test prints "skipped" and passes.
#include <cmath>

#include "tests/experiments/torchvision_compare.h"

namespace fb::experiments {
namespace {

using test_torchvision::CompareWithTorchvision;
using test_torchvision::HaveTorchvision;

// 107x107 is the smallest size whose 8x8 blocks keep 2x2 positions (at 75x75 they are 1x1 and
// batch normalization over two values is ill-conditioned for a float32 comparison).
TEST_CASE("inception_v3 matches torchvision's logits, gradients and running statistics",
          "[inception]") {
  if (!HaveTorchvision()) return;
  constexpr int64_t kSize = 107;
  auto o = WithModelDefaults("inception_v3", ModelOptions{});
  REQUIRE(o.ok());
  o->image_shape = {kSize, kSize, 3};
  o->num_classes = 10;
  o->batch_size = 2;
  Tensor x(DataType::kFloat, TensorShape{2, kSize, kSize, 3});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::sin(0.01f * i);
  Tensor labels = Tensor::FromVector(std::vector<int32_t>{1, 7}, TensorShape{2});
  CompareWithTorchvision("inception_v3", *o, x, labels, "inception_v3_torchvision.py");
}

}  // namespace
}  // namespace fb::experiments
