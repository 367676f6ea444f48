// resnet50 (experiments/models/resnet.cc): torchvision's parameter count (graph built only, no
// run), layer output shapes at a small image size, and training on a fixed synthetic batch at
// 32x32 (the loss falls; batch-norm moving statistics move; they are checkpointed but get no
// gradient and no optimizer slot).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <random>

#include "experiments/models/models.h"
#include "experiments/training/model_saver.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

int64_t Count(const std::vector<ModelVariable>& vs) {
  int64_t n = 0;
  for (const ModelVariable& v : vs) n += v.shape.num_elements();
  return n;
}

ModelOptions Small(int64_t size, int64_t classes) {
  auto o = WithModelDefaults("resnet50", ModelOptions{});
  REQUIRE(o.ok());
  o->image_shape = {size, size, 3};
  o->num_classes = classes;
  o->batch_size = 2;
  return *o;
}

TEST_CASE("resnet50 has torchvision's 25,557,032 trainable parameters", "[train][resnet]") {
  auto o = WithModelDefaults("resnet50", ModelOptions{});
  REQUIRE(o.ok());
  CHECK(o->image_shape == std::vector<int64_t>{224, 224, 3});
  CHECK(o->num_classes == 1000);
  auto m = BuildModel("resnet50", *o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  // 53 convs + 53 * (gamma, beta) + fc weights and biases.
  CHECK(m->variables.size() == 161);
  CHECK(Count(m->variables) == 25557032);
  // Moving mean and variance of the 53 batch norms: 2 * 26,560 more (Keras' non-trainable 53,120).
  CHECK(m->non_trainable_variables.size() == 106);
  CHECK(Count(m->non_trainable_variables) == 53120);
  CHECK(Count(m->variables) + Count(m->non_trainable_variables) == 25610152);
  for (const ModelVariable& v : m->variables) CHECK(v.name.find("moving_") == std::string::npos);
  CHECK_FALSE(m->update_op.empty());
}

// Names of the nodes with a control edge into node `name` of m's graph.
std::vector<std::string> ControlInputs(const Model& m, const std::string& name) {
  std::vector<std::string> names;
  for (Node* n : m.scope.graph()->nodes())
    if (n->name() == name)
      for (const Edge* e : n->in_edges())
        if (e->IsControlEdge()) names.push_back(e->src->name());
  return names;
}

TEST_CASE("resnet50's train op runs the moving-average updates only when it computes gradients",
          "[train][resnet]") {
  ModelOptions o = Small(32, 4);
  auto m = BuildModel("resnet50", o);
  REQUIRE(m.ok());
  REQUIRE(m->update_op == "update_non_trainable");
  std::vector<std::string> deps = ControlInputs(*m, m->train_op);
  CHECK(std::count(deps.begin(), deps.end(), "update_non_trainable") == 1);
  CHECK(ControlInputs(*m, m->update_op).size() == 106);
  // Applying fed gradients runs no forward pass: the caller runs update_op with the gradients.
  o.mode = TrainMode::kApplyFedGradients;
  m = BuildModel("resnet50", o);
  REQUIRE(m.ok());
  deps = ControlInputs(*m, m->train_op);
  CHECK(std::count(deps.begin(), deps.end(), "update_non_trainable") == 0);
  CHECK(m->update_op == "update_non_trainable");
}

TEST_CASE("resnet50 gives torchvision's layer shapes at 64x64", "[train][resnet]") {
  auto m = BuildModel("resnet50", Small(64, 10));
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  auto s = test::MakeSession(m->scope.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {m->init});
  Tensor x(DataType::kFloat, TensorShape{2, 64, 64, 3});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::sin(0.01f * i);
  auto out = test::RunOk(s.get(), {{m->images, x}},
                         {"conv1/Conv2D:0", "maxpool:0", "layer1/2/relu:0", "layer2/3/relu:0",
                          "layer3/5/relu:0", "layer4/2/relu:0", m->logits},
                         {});
  CHECK(out[0].shape() == TensorShape{2, 32, 32, 64});
  CHECK(out[1].shape() == TensorShape{2, 16, 16, 64});
  CHECK(out[2].shape() == TensorShape{2, 16, 16, 256});
  CHECK(out[3].shape() == TensorShape{2, 8, 8, 512});
  CHECK(out[4].shape() == TensorShape{2, 4, 4, 1024});
  CHECK(out[5].shape() == TensorShape{2, 2, 2, 2048});
  CHECK(out[6].shape() == TensorShape{2, 10});
}

TEST_CASE("resnet50 trains on a fixed batch: loss falls, moving statistics move",
          "[train][resnet]") {
  // At initialization a batch-norm ResNet on a tiny batch has huge gradients (|g|^2 ~ 1e7 to
  // 1e9 at 32x32 to 64x64, torchvision alike: batch statistics of a few values amplify them), so
  // plain SGD steps are chaotic; Adam's bounded per-parameter steps make the loss of a 48x48
  // batch of 2 fall at every step (torchvision: 4 of 4 seeds).
  ModelOptions o = Small(48, 4);
  o.optimizer = "adam";
  o.learning_rate = 1e-5;
  auto m = BuildModel("resnet50", o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  auto saver = CreateModelSaver(*m);
  REQUIRE(saver.ok());
  auto s = test::MakeSession(m->scope.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {m->init});
  Tensor x(DataType::kFloat, TensorShape{2, 48, 48, 3});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-1, 1);
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = uniform(rng);
  Tensor y = Tensor::FromVector(std::vector<int32_t>{1, 2}, TensorShape{2});
  std::vector<double> losses;
  for (int step = 0; step < 3; ++step) {
    auto out = test::RunOk(s.get(), {{m->images, x}, {m->labels, y}}, {m->loss}, {m->train_op});
    losses.push_back(out[0].data<float>()[0]);
  }
  INFO("losses " << losses[0] << " " << losses[1] << " " << losses[2]);
  CHECK(losses[1] < losses[0]);
  CHECK(losses[2] < losses[1]);
  // The train op ran the moving-average updates: moving_mean left its zeros.
  auto mm = test::RunOk(s.get(), {}, {"bn1/moving_mean:0", "input/step:0"}, {});
  double sum = 0;
  for (int64_t i = 0; i < mm[0].NumElements(); ++i) sum += std::abs(mm[0].data<float>()[i]);
  CHECK(sum > 0);
  CHECK(mm[1].data<int64_t>()[0] == 3);
  // Moving statistics are Variables the Saver holds, with no optimizer slot.
  const std::vector<std::string>& saved = (*saver)->variable_names();
  CHECK(std::find(saved.begin(), saved.end(), "bn1/moving_mean") != saved.end());
  CHECK(std::find(saved.begin(), saved.end(), "layer4/2/bn3/moving_variance") != saved.end());
  for (Node* n : m->scope.graph()->nodes()) {
    INFO(n->name());
    if (n->op() == "Variable") CHECK(n->name().find("moving_mean/") == std::string::npos);
  }
}

TEST_CASE("resnet50's inference form restores a training checkpoint and uses its statistics",
          "[train][resnet]") {
  // Train one step (moving statistics move), save; build ModelOptions::training = false, restore.
  // Adam's small bounded step keeps the weights near their init (an SGD step on a tiny batch can
  // scale conv1 by 1e4, which batch statistics hide but the moving statistics cannot).
  ModelOptions o = Small(32, 4);
  o.optimizer = "adam";
  o.learning_rate = 1e-5;
  auto train = BuildModel("resnet50", o);
  REQUIRE(train.ok());
  auto train_saver = CreateModelSaver(*train);
  REQUIRE(train_saver.ok());
  auto s = test::MakeSession(train->scope.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {train->init});
  Tensor x(DataType::kFloat, TensorShape{2, 32, 32, 3});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::sin(0.37f * i);
  Tensor y = Tensor::FromVector(std::vector<int32_t>{0, 1}, TensorShape{2});
  test::RunOk(s.get(), {{train->images, x}, {train->labels, y}}, {}, {train->train_op});
  test::TempDir dir;
  REQUIRE((*train_saver)->Save(s.get(), dir.file("ckpt.h5"), 1).ok());
  const std::vector<std::string> stats = {"layer4/2/bn3/moving_mean:0",
                                          "layer4/2/bn3/moving_variance:0"};
  std::vector<Tensor> trained = test::RunOk(s.get(), {}, stats, {});

  o.training = false;
  auto infer = BuildModel("resnet50", o);
  REQUIRE(infer.ok());
  CHECK(infer->update_op.empty());
  CHECK(infer->non_trainable_variables.size() == 106);
  auto infer_saver = CreateModelSaver(*infer);
  REQUIRE(infer_saver.ok());
  auto si = test::MakeSession(infer->scope.ToGraphDef());
  auto step = (*infer_saver)->Restore(si.get(), dir.file("ckpt.h5"));
  INFO(step.status().ToString());
  REQUIRE(step.ok());
  std::vector<Tensor> restored = test::RunOk(si.get(), {}, stats, {});
  test::ExpectClose(restored[0], trained[0], 0, 0);
  test::ExpectClose(restored[1], trained[1], 0, 0);
  // One image alone: inference normalizes with the moving statistics, so its logits are the
  // same alone or in the batch (batch statistics would differ).
  auto both = test::RunOk(si.get(), {{infer->images, x}}, {infer->logits}, {});
  auto one = test::RunOk(si.get(), {{infer->images, x.Slice(0, 1)}}, {infer->logits}, {});
  for (int c = 0; c < 4; ++c) {
    CHECK(std::isfinite(both[0].data<float>()[c]));
    CHECK(one[0].data<float>()[c] == Approx(both[0].data<float>()[c]).epsilon(1e-4).margin(1e-5));
  }
}

}  // namespace
}  // namespace fb::experiments
