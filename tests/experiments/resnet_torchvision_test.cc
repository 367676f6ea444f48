// resnet50 against torchvision 0.14 (Debian's /usr/bin/python3 with torch and torchvision): the
// model's initial weights, a 48x48 batch of 2 and the results of one training-form step are
// written as .npy files, and tests/experiments/resnet50_torchvision.py loads the weights into
// torchvision.models.resnet50 and compares logits, every gradient and the batch-norm moving
// statistics (see the script for tolerances). This checks the architecture, the explicit
// symmetric padding and batch normalization end to end. Without torch and torchvision the test
// prints "skipped" and passes.
#include <cmath>

#include "tests/experiments/torchvision_compare.h"

namespace fb::experiments {
namespace {

using test_torchvision::CompareWithTorchvision;
using test_torchvision::HaveTorchvision;

TEST_CASE("resnet50 matches torchvision's logits, gradients and running statistics",
          "[train][resnet]") {
  if (!HaveTorchvision()) return;
  auto o = WithModelDefaults("resnet50", ModelOptions{});
  REQUIRE(o.ok());
  o->image_shape = {48, 48, 3};
  o->num_classes = 4;
  o->batch_size = 2;
  Tensor x(DataType::kFloat, TensorShape{2, 48, 48, 3});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::sin(0.37f * i);
  Tensor labels = Tensor::FromVector(std::vector<int32_t>{1, 3}, TensorShape{2});
  CompareWithTorchvision("resnet50", *o, x, labels, "resnet50_torchvision.py");
}

}  // namespace
}  // namespace fb::experiments
