// The batch-normalization layer (experiments/models/batch_norm.h) and the VariableStore's
// non-trainable Variables: which Variables it creates, the moving-average updates of the
// training form (values computed by hand from a 4-element batch), the inference form, and the
// Reusing store's error.
#include <catch2/catch.hpp>
#include <cmath>

#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "experiments/models/batch_norm.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

// x [4, 1, 1, 2]: channel 0 = {1, 2, 3, 6} (mean 3, biased var 3.5, unbiased 14/3),
// channel 1 = {-1, -1, 1, 1} (mean 0, biased var 1, unbiased 4/3).
Tensor BatchX() {
  return Tensor::FromVector(std::vector<float>{1, -1, 2, -1, 3, 1, 6, 1}, TensorShape{4, 1, 1, 2});
}

struct Built {
  Scope root = Scope::NewRootScope();
  VariableStore vars{1};
  Output x, y;
};

void Build(Built* b, bool training) {
  b->vars.set_training(training);
  b->x = ops::Placeholder(b->root.WithOpName("x"), DataType::kFloat, TensorShape{-1, 1, 1, 2});
  b->y = BatchNorm(b->root, &b->vars, "bn", b->x, 2, Activation::kNone);
}

std::vector<std::string> Names(const std::vector<Output>& vs) {
  std::vector<std::string> names;
  for (const Output& v : vs) names.push_back(v.node()->name());
  return names;
}

TEST_CASE("BatchNorm creates trainable gamma and beta and non-trainable moving statistics",
          "[train][batch_norm]") {
  Built b;
  Build(&b, true);
  INFO(b.root.status().ToString());
  REQUIRE(b.root.ok());
  CHECK(Names(b.vars.variables()) == std::vector<std::string>{"bn/gamma", "bn/beta"});
  CHECK(Names(b.vars.non_trainable_variables()) ==
        std::vector<std::string>{"bn/moving_mean", "bn/moving_variance"});
  CHECK(b.vars.initializers().size() == 4);
  CHECK(b.vars.updates().size() == 2);
  // The recorded specs (CreateFromSpecs): the trainable ones (gamma is ones), then the
  // non-trainable ones apart (moving mean zeros, moving variance ones).
  REQUIRE(b.vars.specs().size() == 2);
  CHECK(b.vars.specs()[0].zeros);
  CHECK(b.vars.specs()[0].fill == 1.0f);
  REQUIRE(b.vars.non_trainable_specs().size() == 2);
  CHECK(b.vars.non_trainable_specs()[0].name == "bn/moving_mean");
  CHECK(b.vars.non_trainable_specs()[0].fill == 0.0f);
  CHECK(b.vars.non_trainable_specs()[1].fill == 1.0f);
  CHECK(b.vars.non_trainable_specs()[1].shape == TensorShape({2}));
}

TEST_CASE("Training-form BatchNorm normalizes with batch statistics and moves the averages by 0.1",
          "[train][batch_norm]") {
  Built b;
  Build(&b, true);
  Node* init = ops::Group(b.root.WithOpName("init"), b.vars.initializers());
  Node* update = ops::Group(b.root.WithOpName("update"), b.vars.updates());
  REQUIRE(b.root.ok());
  auto s = test::MakeSession(b.root.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {init->name()});
  auto out = test::RunOk(s.get(), {{b.x.name(), BatchX()}}, {b.y.name()}, {update->name()});
  // y = (x - mean) / sqrt(var + 1e-5): channel 0 value 6 -> 3 / sqrt(3.50001).
  CHECK(out[0].data<float>()[6] == Approx(3 / std::sqrt(3.50001)).epsilon(1e-5));
  CHECK(out[0].data<float>()[7] == Approx(1 / std::sqrt(1.00001)).epsilon(1e-5));
  auto stats = test::RunOk(s.get(), {}, {"bn/moving_mean:0", "bn/moving_variance:0"}, {});
  // moving = 0.9 * moving + 0.1 * batch (variance unbiased): mean {0.3, 0},
  // variance {0.9 + 0.1 * 14/3, 0.9 + 0.1 * 4/3}.
  CHECK(stats[0].data<float>()[0] == Approx(0.3).epsilon(1e-6));
  CHECK(stats[0].data<float>()[1] == Approx(0).margin(1e-7));
  CHECK(stats[1].data<float>()[0] == Approx(0.9 + 1.4 / 3).epsilon(1e-6));
  CHECK(stats[1].data<float>()[1] == Approx(0.9 + 0.4 / 3).epsilon(1e-6));
  // A second step moves them again: mean 0.9 * 0.3 + 0.3.
  test::RunOk(s.get(), {{b.x.name(), BatchX()}}, {}, {update->name()});
  stats = test::RunOk(s.get(), {}, {"bn/moving_mean:0"}, {});
  CHECK(stats[0].data<float>()[0] == Approx(0.57).epsilon(1e-6));
}

TEST_CASE("Inference-form BatchNorm normalizes with the moving statistics and has no updates",
          "[train][batch_norm]") {
  Built b;
  Build(&b, false);
  Node* init = ops::Group(b.root.WithOpName("init"), b.vars.initializers());
  REQUIRE(b.root.ok());
  CHECK(b.vars.updates().empty());
  CHECK(b.vars.non_trainable_variables().size() == 2);
  auto s = test::MakeSession(b.root.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {init->name()});
  // moving_mean 0, moving_variance 1 at init: y = x / sqrt(1 + 1e-5).
  auto out = test::RunOk(s.get(), {{b.x.name(), BatchX()}}, {b.y.name()}, {});
  for (int i = 0; i < 8; ++i)
    CHECK(out[0].data<float>()[i] == Approx(BatchX().data<float>()[i] / std::sqrt(1.00001)));
}

TEST_CASE("BatchNorm in a Reusing store updates the given moving statistics",
          "[train][batch_norm]") {
  Scope root = Scope::NewRootScope();
  Output g = ops::Variable(root.WithOpName("g"), TensorShape{2}, DataType::kFloat);
  Output be = ops::Variable(root.WithOpName("be"), TensorShape{2}, DataType::kFloat);
  Output mean = ops::Variable(root.WithOpName("mean"), TensorShape{2}, DataType::kFloat);
  Output var = ops::Variable(root.WithOpName("var"), TensorShape{2}, DataType::kFloat);
  std::vector<Output> inits = {
      ops::Assign(root, g, ops::Const(root, std::vector<float>{1, 1}, TensorShape{2})),
      ops::Assign(root, be, ops::Const(root, std::vector<float>{0, 0}, TensorShape{2})),
      ops::Assign(root, mean, ops::Const(root, std::vector<float>{0, 0}, TensorShape{2})),
      ops::Assign(root, var, ops::Const(root, std::vector<float>{1, 1}, TensorShape{2}))};
  VariableStore reusing = VariableStore::Reusing({g, be}, {mean, var});
  Output x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape{-1, 1, 1, 2});
  BatchNormSpec spec;
  spec.decay = 0.75;
  BatchNorm(root.NewSubScope("replica_0"), &reusing, "bn", x, 2, Activation::kRelu, spec);
  Node* init = ops::Group(root.WithOpName("init"), inits);
  Node* update = ops::Group(root.WithOpName("update"), reusing.updates());
  REQUIRE(root.ok());
  REQUIRE(reusing.non_trainable_variables().size() == 2);
  CHECK(reusing.initializers().empty());
  auto session = test::MakeSession(root.ToGraphDef());
  test::RunOk(session.get(), {}, {}, {init->name()});
  // Batch: channel 0 takes 1 and 3 (mean 2, unbiased variance 2), channel 1 2 and 2 (mean 2, 0).
  Tensor batch(DataType::kFloat, TensorShape{2, 1, 1, 2});
  const float values[] = {1, 2, 3, 2};
  std::copy(values, values + 4, batch.data<float>());
  test::RunOk(session.get(), {{x.name(), batch}}, {}, {update->name()});
  const auto after = test::RunOk(session.get(), {}, {mean.name(), var.name()}, {});
  // moving -= (moving - batch) * (1 - 0.75): the given Variables themselves moved.
  CHECK(test::Values<float>(after[0]) == std::vector<float>{0.5f, 0.5f});
  CHECK(test::Values<float>(after[1])[0] == Approx(1.25));
  CHECK(test::Values<float>(after[1])[1] == Approx(0.75));
}

TEST_CASE("BatchNorm fails clearly in a Reusing store without moving statistics and on a channel mismatch",
          "[train][batch_norm]") {
  Scope root = Scope::NewRootScope();
  Output g = ops::Variable(root.WithOpName("g"), TensorShape{2}, DataType::kFloat);
  Output be = ops::Variable(root.WithOpName("be"), TensorShape{2}, DataType::kFloat);
  VariableStore reusing = VariableStore::Reusing({g, be});
  Output x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape{-1, 1, 1, 2});
  BatchNorm(root.NewSubScope("replica_0"), &reusing, "bn", x, 2, Activation::kRelu);
  REQUIRE_FALSE(root.ok());
  CHECK_THAT(root.status().message(), Catch::Contains("replica_0/bn/moving_mean") &&
                                          Catch::Contains("only 0 were given"));

  // A given moving statistic of the wrong shape.
  Scope other_root = Scope::NewRootScope();
  Output g2 = ops::Variable(other_root.WithOpName("g"), TensorShape{2}, DataType::kFloat);
  Output be2 = ops::Variable(other_root.WithOpName("be"), TensorShape{2}, DataType::kFloat);
  Output wide = ops::Variable(other_root.WithOpName("wide"), TensorShape{3}, DataType::kFloat);
  VariableStore mismatched = VariableStore::Reusing({g2, be2}, {wide, wide});
  Output x2 = ops::Placeholder(other_root.WithOpName("x"), DataType::kFloat, TensorShape{-1, 1, 1, 2});
  BatchNorm(other_root, &mismatched, "bn", x2, 2, Activation::kRelu);
  REQUIRE_FALSE(other_root.ok());
  CHECK_THAT(other_root.status().message(), Catch::Contains("bn/moving_mean") &&
                                                Catch::Contains("wide"));

  // The channel count is checked by the op when it runs (shape functions run at placement).
  Scope other = Scope::NewRootScope();
  VariableStore vars(1);
  Output x3 = ops::Placeholder(other.WithOpName("x"), DataType::kFloat, TensorShape{-1, 4, 4, 3});
  Output y = BatchNorm(other, &vars, "bn5", x3, 5, Activation::kNone);
  Node* init = ops::Group(other.WithOpName("init"), vars.initializers());
  REQUIRE(other.ok());
  auto s = test::MakeSession(other.ToGraphDef());
  test::RunOk(s.get(), {}, {}, {init->name()});
  std::vector<Tensor> out;
  Status st = s->Run({{x3.name(), Tensor(DataType::kFloat, TensorShape{1, 4, 4, 3})}}, {y.name()},
                     {}, &out);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("bn5/FusedBatchNorm") &&
                               Catch::Contains("scale must be 1-D with 3 elements") &&
                               Catch::Contains("[5]"));
}

}  // namespace
}  // namespace fb::experiments
