// dist-train's models (mpi/dist_model.h): image models other than LeNet and the MLP (AlexNet,
// issue 18's runs across emulated hosts) train on synthetic data of their registered input shape.
#include "mpi/dist_model.h"

#include <catch2/catch.hpp>

#include "engine/client/scope.h"

namespace fb::mpi {
namespace {

TEST_CASE("dist-train builds AlexNet on synthetic 227x227x3 images of 1000 classes", "[mpi]") {
  auto model = MakeDistModel("alexnet", 8, 1);
  INFO(model.status().ToString());
  REQUIRE(model.ok());
  const Feeds feeds = (*model)->ReplicaFeeds(1, 3, 0, 2, 2);
  REQUIRE(feeds.size() == 2);
  CHECK(feeds[0].first == "replica_1/images");
  CHECK(feeds[0].second.shape() == TensorShape({2, 227, 227, 3}));
  CHECK(feeds[1].first == "replica_1/labels");
  REQUIRE(feeds[1].second.shape() == TensorShape({2}));
  for (int64_t i = 0; i < 2; ++i) {
    CHECK(feeds[1].second.data<int32_t>()[i] >= 0);
    CHECK(feeds[1].second.data<int32_t>()[i] < 1000);
  }
  // The Variables of AlexNet's five convolutions and three fully connected layers (and biases).
  Scope root = Scope::NewRootScope();
  ModelVariables vars = (*model)->Fns().variables(root);
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  CHECK(vars.trainable.size() == 16);
  CHECK(vars.initializers.size() == 16);
  CHECK(vars.non_trainable.empty());
}

// Batch normalization's moving statistics are Variables too (they used to be refused): created
// once with the trainable ones, read and updated by every replica.
TEST_CASE("dist-train builds ResNet-50 with its 53 batch norms' moving statistics", "[mpi]") {
  auto model = MakeDistModel("resnet50", 8, 1);
  INFO(model.status().ToString());
  REQUIRE(model.ok());
  Scope root = Scope::NewRootScope();
  ModelFns fns = (*model)->Fns();
  ModelVariables vars = fns.variables(root);
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  REQUIRE(vars.non_trainable.size() == 2 * 53);
  CHECK(vars.non_trainable[0].node()->name() == "bn1/moving_mean");
  CHECK(vars.initializers.size() == vars.trainable.size() + vars.non_trainable.size());
  ReplicaOutputs replica = fns.loss(root.NewSubScope("replica_0"), vars);
  REQUIRE(root.ok());
  CHECK(replica.updates.size() == 2 * 53);
  ReplicaOutputs second = fns.loss(root.NewSubScope("replica_1"), vars);
  REQUIRE(root.ok());
  CHECK(second.updates.size() == 2 * 53);
}

// A batch larger than the training set used to divide by zero batches in ReplicaFeeds.
TEST_CASE("dist-train's synthetic data hold a whole batch and Fashion-MNIST's reject a larger one",
          "[mpi]") {
  auto alexnet = MakeDistModel("alexnet", 8, 1, 100);
  INFO(alexnet.status().ToString());
  REQUIRE(alexnet.ok());
  const Feeds feeds = (*alexnet)->ReplicaFeeds(0, 5, 0, 1, 100);
  REQUIRE(feeds.size() == 2);
  CHECK(feeds[0].second.shape() == TensorShape({100, 227, 227, 3}));
  auto huge = MakeDistModel("alexnet", 8, 1, 65536);  // 40 GB of images: refused, not allocated
  REQUIRE_FALSE(huge.ok());
  CHECK_THAT(huge.status().message(), Catch::Contains("--batch 65536"));
  auto lenet = MakeDistModel("lenet", 8, 1, 60001);
  REQUIRE_FALSE(lenet.ok());
  CHECK_THAT(lenet.status().message(), Catch::Contains("--batch 60001"));
  CHECK_THAT(lenet.status().message(), Catch::Contains("60000"));
}

TEST_CASE("dist-train names an unknown model and the ones it knows", "[mpi]") {
  auto model = MakeDistModel("nosuch", 8, 1);
  REQUIRE_FALSE(model.ok());
  CHECK_THAT(model.status().message(), Catch::Contains("'nosuch'"));
  CHECK_THAT(model.status().message(), Catch::Contains("alexnet"));
}

}  // namespace
}  // namespace fb::mpi
