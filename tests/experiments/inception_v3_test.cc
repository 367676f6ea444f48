// inception_v3 (experiments/models/inception_v3.cc): parameter counts and per-block shapes at
// 299x299 from the graph alone (shape inference, nothing run), and a few training steps at the
// smallest image the architecture accepts (75x75), batch 2.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/placement/graph_shapes.h"
#include "engine/placement/op_cost.h"
#include "experiments/models/models.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

ModelOptions InceptionOptions(int64_t image_size) {
  auto o = WithModelDefaults("inception_v3", ModelOptions{});
  REQUIRE(o.ok());
  o->image_shape = {image_size, image_size, 3};
  o->batch_size = 2;
  o->optimizer = "sgd";  // no slot Variables: every Variable but input/step is the model's
  return *o;
}

Model BuildInception(const ModelOptions& o) {
  auto m = BuildModel("inception_v3", o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  return std::move(*m);
}

int64_t Elements(const TensorShape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dim_sizes()) n *= d;
  return n;
}

TEST_CASE("inception_v3 is registered for 299x299x3 images and 1000 classes", "[inception]") {
  auto names = ModelNames();
  CHECK(std::find(names.begin(), names.end(), "inception_v3") != names.end());
  auto d = LookupDefaults("inception_v3");
  REQUIRE(d.ok());
  CHECK(d->image_shape == std::vector<int64_t>{299, 299, 3});
  CHECK(d->num_classes == 1000);
}

// Counts worked out in /work/shared/papers/osdi2016-benchmarks.md section 3: TensorFlow's
// Inception-v3 (TF-slim, Keras) normalizes without gamma (batch_norm scale=False): 23,817,352
// trainable parameters and 23,851,784 with the moving statistics. torchvision's BasicConv2d has a
// gamma too: its 27,161,264 parameters less the aux head's 3,326,696 leave 23,834,568, i.e. one
// gamma per batch-normalized channel (17,216) more.
TEST_CASE("inception_v3 has TensorFlow's parameter count without the aux head",
          "[inception]") {
  Model m = BuildInception(InceptionOptions(299));
  int64_t trainable = 0, bn_channels = 0, conv_layers = 0;
  for (const ModelVariable& v : m.variables) {
    trainable += Elements(v.shape);
    if (v.shape.rank() == 4) {  // conv weights [kh, kw, in, out], one batch norm each
      bn_channels += v.shape.dim_size(3);
      ++conv_layers;
    }
  }
  int64_t moving = 0;
  for (const ModelVariable& v : m.non_trainable_variables) moving += Elements(v.shape);
  // Every Variable of the graph but input/step (sgd has no slots) is one of the two kinds.
  int64_t all = 0;
  size_t num_all = 0;
  for (Node* n : m.scope.graph()->nodes()) {
    if (n->op() != "Variable" || n->name() == m.step) continue;
    all += Elements(n->def().attrs.at("shape").get<TensorShape>());
    ++num_all;
  }
  CHECK(conv_layers == 94);
  CHECK(bn_channels == 17216);
  CHECK(trainable == 23817352);                   // weights + beta + fc
  CHECK(m.variables.size() == 94 * 2 + 2);        // weights, beta per conv; fc
  CHECK(moving == 2 * 17216);                     // moving mean and variance
  CHECK(m.non_trainable_variables.size() == 94 * 2);
  CHECK(trainable + moving == 23851784);
  CHECK(all == trainable + moving);
  CHECK(num_all == m.variables.size() + m.non_trainable_variables.size());
  CHECK(trainable + bn_channels == 23834568);  // torchvision's count without the aux head
  CHECK(m.variables.front().name == "Conv2d_1a_3x3/weights");
  CHECK(m.variables.front().shape == TensorShape({3, 3, 3, 32}));
  CHECK(m.variables[m.variables.size() - 2].shape == TensorShape({2048, 1000}));
  CHECK(m.variables.back().name == "fc/biases");
  CHECK(m.variables[1].name == "Conv2d_1a_3x3/bn/beta");
  CHECK(m.non_trainable_variables.front().name == "Conv2d_1a_3x3/bn/moving_mean");

  // torchvision's BasicConv2d: BatchNorm2d(eps=0.001) after each of the 94 convolutions.
  int batch_norms = 0;
  for (Node* n : m.scope.graph()->nodes()) {
    if (n->op() != "FusedBatchNorm") continue;
    ++batch_norms;
    float epsilon = 0;
    REQUIRE(GetNodeAttr(n->def().attrs, "epsilon", &epsilon).ok());
    CHECK(epsilon == 0.001f);
  }
  CHECK(batch_norms == 94);
}

// Expected NHWC shapes at batch `n` and image `size` (299 or 75) of the stem layers, every
// Mixed block and a few factorized convs.
std::map<std::string, TensorShape> ExpectedShapes(int64_t n, int64_t size) {
  const bool full = size == 299;
  auto at = [&](int64_t big, int64_t small, int64_t c) {
    return TensorShape({n, full ? big : small, full ? big : small, c});
  };
  return {
      {"Conv2d_1a_3x3/Conv2D", at(149, 37, 32)},
      {"Conv2d_2a_3x3/Conv2D", at(147, 35, 32)},
      {"Conv2d_2b_3x3/Conv2D", at(147, 35, 64)},
      {"MaxPool_3a_3x3", at(73, 17, 64)},
      {"Conv2d_3b_1x1/Conv2D", at(73, 17, 80)},
      {"Conv2d_4a_3x3/Conv2D", at(71, 15, 192)},
      {"MaxPool_5a_3x3", at(35, 7, 192)},
      {"Mixed_5b/branch5x5_2/Conv2D", at(35, 7, 64)},
      {"Mixed_5b/avg_pool", at(35, 7, 192)},
      {"Mixed_5b/concat", at(35, 7, 256)},
      {"Mixed_5c/concat", at(35, 7, 288)},
      {"Mixed_5d/concat", at(35, 7, 288)},
      {"Mixed_6a/branch3x3/Conv2D", at(17, 3, 384)},
      {"Mixed_6a/branch3x3dbl_3/Conv2D", at(17, 3, 96)},
      {"Mixed_6a/max_pool", at(17, 3, 288)},
      {"Mixed_6a/concat", at(17, 3, 768)},
      {"Mixed_6b/branch7x7_2/Conv2D", at(17, 3, 128)},  // 1x7, padding (0,3)
      {"Mixed_6b/branch7x7_3/Conv2D", at(17, 3, 192)},  // 7x1, padding (3,0)
      {"Mixed_6b/concat", at(17, 3, 768)},
      {"Mixed_6c/branch7x7dbl_4/Conv2D", at(17, 3, 160)},
      {"Mixed_6c/concat", at(17, 3, 768)},
      {"Mixed_6d/concat", at(17, 3, 768)},
      {"Mixed_6e/branch7x7dbl_5/Conv2D", at(17, 3, 192)},
      {"Mixed_6e/concat", at(17, 3, 768)},
      {"Mixed_7a/branch3x3_2/Conv2D", at(8, 1, 320)},
      {"Mixed_7a/branch7x7x3_4/Conv2D", at(8, 1, 192)},
      {"Mixed_7a/concat", at(8, 1, 1280)},
      {"Mixed_7b/branch3x3_2a/Conv2D", at(8, 1, 384)},  // 1x3, padding (0,1)
      {"Mixed_7b/branch3x3_2/concat", at(8, 1, 768)},
      {"Mixed_7b/branch3x3dbl_3/concat", at(8, 1, 768)},
      {"Mixed_7b/concat", at(8, 1, 2048)},
      {"Mixed_7c/branch3x3dbl_3b/Conv2D", at(8, 1, 384)},  // 3x1, padding (1,0)
      {"Mixed_7c/concat", at(8, 1, 2048)},
      {"avgpool", TensorShape({n, 2048})},
  };
}

TEST_CASE("inception_v3 block shapes at 299x299 follow torchvision (shape inference only)",
          "[inception]") {
  ModelOptions o = InceptionOptions(299);
  o.training = false;  // the inference form (moving statistics) has the same shapes
  Model m = BuildInception(o);
  const Graph& g = *m.scope.graph();
  auto shapes = InferGraphShapes(g, {{"input/images", TensorShape({1, 299, 299, 3})}});
  INFO(shapes.status().ToString());
  REQUIRE(shapes.ok());
  auto expected = ExpectedShapes(1, 299);
  expected["fc/BiasAdd"] = TensorShape({1, 1000});
  for (const auto& [name, want] : expected) {
    INFO(name);
    Node* n = g.FindNode(name);
    REQUIRE(n != nullptr);
    const PartialShape& got = shapes->output(*n, 0);
    REQUIRE(got.has_value());
    CHECK(*got == want);
  }
  CHECK(m.logits == "fc/BiasAdd:0");

  // Forward multiply-adds per image, convolutions and fc (the cost model counts 2 FLOPs each):
  // 5,713,216,096 in /work/shared/papers/osdi2016-benchmarks.md section 3 (torchvision: "GFLOPS
  // 5.71").
  double forward_flops = 0;
  for (Node* n : g.nodes()) {
    if ((n->op() != "Conv2D" && n->op() != "MatMul") || n->name().rfind("gradients/", 0) == 0) {
      continue;
    }
    forward_flops += EstimateOpWork(*n, shapes->inputs(*n), shapes->outputs(*n)).flops;
  }
  CHECK(forward_flops == 2.0 * 5713216096);
}

TEST_CASE("inception_v3 rejects images smaller than 75x75 naming the model and the size",
          "[inception]") {
  ModelOptions o = InceptionOptions(75);
  o.image_shape = {75, 74, 3};
  auto m = BuildModel("inception_v3", o);
  REQUIRE(m.status().code() == Code::kInvalidArgument);
  CHECK_THAT(m.status().message(), Catch::Contains("inception_v3") &&
                                       Catch::Contains("at least 75x75") &&
                                       Catch::Contains("got 75x74"));
}

// A fixed batch of two 75x75x3 images (a smooth pattern) with labels 3 and 7.
std::vector<Session::NamedTensor> FixedBatch(const Model& m) {
  Tensor x(DataType::kFloat, TensorShape({2, 75, 75, 3}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = std::sin(0.01f * i);
  Tensor y(DataType::kInt32, TensorShape({2}));
  y.data<int32_t>()[0] = 3;
  y.data<int32_t>()[1] = 7;
  return {{m.images, x}, {m.labels, y}};
}

TEST_CASE("inception_v3 runs at 75x75 with the inferred block shapes and its loss falls",
          "[inception]") {
  ModelOptions o = InceptionOptions(75);
  o.num_classes = 10;
  o.optimizer = "momentum";
  o.learning_rate = 0.01;
  Model m = BuildInception(o);
  auto s = test::MakeSession(m.scope.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {m.init});
  const auto batch = FixedBatch(m);

  auto expected = ExpectedShapes(2, 75);
  std::vector<std::string> fetches = {m.logits};
  for (const auto& [name, shape] : expected) fetches.push_back(name + ":0");
  auto out = test::RunOk(s.get(), batch, fetches);
  CHECK(out[0].shape() == TensorShape({2, 10}));
  size_t i = 1;
  for (const auto& [name, shape] : expected) {
    INFO(name);
    CHECK(out[i++].shape() == shape);
  }

  const std::vector<std::string> watched = {"fc/weights:0",
                                           "Mixed_7c/branch_pool/bn/moving_mean:0"};
  auto before = test::RunOk(s.get(), {}, watched);
  std::vector<float> losses;
  for (int step = 0; step < 4; ++step) {
    losses.push_back(test::RunOk(s.get(), batch, {m.loss}, {m.train_op})[0].scalar<float>());
  }
  losses.push_back(test::RunOk(s.get(), batch, {m.loss})[0].scalar<float>());
  INFO("losses " << losses[0] << " " << losses[1] << " " << losses[2] << " " << losses[3] << " "
                 << losses[4]);
  for (float l : losses) REQUIRE(std::isfinite(l));
  CHECK(losses.back() < 0.5f * losses.front());
  auto after = test::RunOk(s.get(), {}, {watched[0], watched[1], m.step + ":0"});
  CHECK(test::Values<float>(after[0]) != test::Values<float>(before[0]));
  CHECK(test::Values<float>(after[1]) != test::Values<float>(before[1]));  // train updates it
  CHECK(after[2].scalar<int64_t>() == 4);
}

}  // namespace
}  // namespace fb::experiments
