// ApplyGradientDescent, ApplyMomentum and ApplyAdam against updates computed by hand from
// TensorFlow's formulas (engine/ops/training_ops.cc), copy-on-write of values read before an
// update, and errors for uninitialized variables and mismatched shapes.
#include <cmath>

#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::RunOk;
using test::Values;

// A graph with float Variables initialized from `init` values (target "init").
struct VarGraph {
  Scope root = Scope::NewRootScope();
  std::vector<Output> vars, inits;
  Output Var(const std::string& name, const std::vector<float>& value) {
    TensorShape shape{static_cast<int64_t>(value.size())};
    Output v = ops::Variable(root.WithOpName(name), shape, DataType::kFloat);
    inits.push_back(ops::Assign(root.WithOpName(name + "/init"), v,
                                ops::Const(root, Tensor::FromVector<float>(value, shape))));
    vars.push_back(v);
    return v;
  }
  Output C(float v) { return ops::Const(root, v); }
  Output C(const std::vector<float>& v) { return ops::Const(root, Tensor::FromVector<float>(v)); }
  std::unique_ptr<Session> Start() {
    ops::Group(root.WithOpName("init"), inits);
    INFO(root.status().ToString());
    REQUIRE(root.ok());
    auto s = test::MakeSession(root.ToGraphDef());
    RunOk(s.get(), {}, {}, {"init"});
    return s;
  }
};

TEST_CASE("ApplyGradientDescent: var -= alpha * delta", "[nn][nn-training]") {
  VarGraph g;
  Output var = g.Var("w", {1, 2, 3});
  Output up = ops::ApplyGradientDescent(g.root.WithOpName("sgd"), var, g.C(0.5f), g.C({2, 2, -2}));
  auto s = g.Start();
  CHECK(Values<float>(RunOk(s.get(), {}, {up.name()})[0]) == std::vector<float>{0, 1, 4});
  CHECK(Values<float>(RunOk(s.get(), {}, {up.name()})[0]) == std::vector<float>{-1, 0, 5});
}

TEST_CASE("ApplyMomentum: plain and Nesterov updates", "[nn][nn-training]") {
  for (bool nesterov : {false, true}) {
    VarGraph g;
    Output var = g.Var("w", {1, 2});
    Output accum = g.Var("accum", {0.5f, -1});
    Output up = ops::ApplyMomentum(g.root, var, accum, g.C(0.1f), g.C({1, 1}), g.C(0.9f), nesterov);
    auto s = g.Start();
    auto out = RunOk(s.get(), {}, {up.name()});
    out.push_back(RunOk(s.get(), {}, {accum.name()})[0]);  // read after the update
    // accum = 0.9 * [0.5, -1] + 1 = [1.45, 0.1]
    CHECK(out[1].data<float>()[0] == Approx(1.45));
    CHECK(out[1].data<float>()[1] == Approx(0.1));
    if (!nesterov) {  // var -= 0.1 * accum
      CHECK(out[0].data<float>()[0] == Approx(0.855));
      CHECK(out[0].data<float>()[1] == Approx(1.99));
    } else {  // var -= 0.1 * grad + 0.1 * 0.9 * accum
      CHECK(out[0].data<float>()[0] == Approx(1 - 0.1 - 0.1305));
      CHECK(out[0].data<float>()[1] == Approx(2 - 0.1 - 0.009));
    }
  }
}

TEST_CASE("ApplyAdam: two steps by hand", "[nn][nn-training]") {
  VarGraph g;
  Output var = g.Var("w", {1, -1});
  Output m = g.Var("m", {0, 0});
  Output v = g.Var("v", {0, 0});
  Output b1p = ops::Placeholder(g.root.WithOpName("beta1_power"), DataType::kFloat);
  Output b2p = ops::Placeholder(g.root.WithOpName("beta2_power"), DataType::kFloat);
  Output up = ops::ApplyAdam(g.root, var, m, v, b1p, b2p, g.C(0.001f), g.C(0.9f), g.C(0.999f),
                             g.C(1e-8f), g.C({2, -0.5f}));
  auto s = g.Start();
  // Step 1 moves every weight by lr against the gradient's sign: m = 0.1 g, v = 0.001 g^2,
  // lr_t = 0.001 sqrt(0.001) / 0.1, so lr_t * m / sqrt(v) = 0.001 * sign(g).
  auto out = RunOk(s.get(), {{"beta1_power:0", Tensor::Scalar<float>(0.9f)},
                             {"beta2_power:0", Tensor::Scalar<float>(0.999f)}},
                   {up.name()});
  CHECK(out[0].data<float>()[0] == Approx(0.999).epsilon(1e-6));
  CHECK(out[0].data<float>()[1] == Approx(-0.999).epsilon(1e-6));
  // Step 2 with the same gradient: m = 0.19 g, v = 0.001999 g^2, lr_t = 0.001 sqrt(1 - 0.999^2)
  // / (1 - 0.81), step = lr_t * 0.19 / sqrt(0.001999) (|g| cancels up to epsilon).
  out = RunOk(s.get(), {{"beta1_power:0", Tensor::Scalar<float>(0.81f)},
                        {"beta2_power:0", Tensor::Scalar<float>(0.998001f)}},
              {up.name()});
  auto slots = RunOk(s.get(), {}, {m.name(), v.name()});
  double lr_t = 0.001 * std::sqrt(1 - 0.998001) / (1 - 0.81);
  double step = lr_t * 0.19 / std::sqrt(0.001999);
  CHECK(out[0].data<float>()[0] == Approx(0.999 - step).epsilon(1e-6));
  CHECK(out[0].data<float>()[1] == Approx(-0.999 + step).epsilon(1e-6));
  CHECK(slots[0].data<float>()[0] == Approx(0.38));
  CHECK(slots[1].data<float>()[1] == Approx(0.001999 * 0.25).epsilon(1e-4));  // float betas
}

TEST_CASE("Apply ops copy on write: values read before an update do not change",
          "[nn][nn-training]") {
  VarGraph g;
  Output var = g.Var("w", {1, 2});
  Output up = ops::ApplyGradientDescent(g.root, var, g.C(1.f), g.C({1, 1}));
  auto s = g.Start();
  Tensor before = RunOk(s.get(), {}, {var.name()})[0];
  RunOk(s.get(), {}, {}, {up.node()->name()});
  CHECK(Values<float>(before) == std::vector<float>{1, 2});
  CHECK(Values<float>(RunOk(s.get(), {}, {var.name()})[0]) == std::vector<float>{0, 1});
}

TEST_CASE("Apply ops report uninitialized variables and shape mismatches",
          "[nn][nn-training][errors]") {
  VarGraph g;
  Output var = g.Var("w", {1, 2, 3});
  Output fresh = ops::Variable(g.root.WithOpName("fresh"), TensorShape{3}, DataType::kFloat);
  ops::ApplyGradientDescent(g.root.WithOpName("bad_delta"), var, g.C(1.f), g.C({1, 1}));
  ops::ApplyGradientDescent(g.root.WithOpName("bad_alpha"), var, g.C({1, 1, 1}), g.C({1, 1, 1}));
  ops::ApplyGradientDescent(g.root.WithOpName("uninit"), fresh, g.C(1.f), g.C({1, 1, 1}));
  ops::ApplyMomentum(g.root.WithOpName("same"), var, var, g.C(1.f), g.C({1, 1, 1}), g.C(1.f));
  auto s = g.Start();
  std::vector<Tensor> out;
  Status st = s->Run({}, {}, {"bad_delta"}, &out);
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("ApplyGradientDescent 'bad_delta'"));
  CHECK_THAT(st.message(), Catch::Contains("delta has shape [2] but var has shape [3]"));
  st = s->Run({}, {}, {"bad_alpha"}, &out);
  CHECK_THAT(st.message(), Catch::Contains("alpha must be a scalar, got shape [3]"));
  st = s->Run({}, {}, {"uninit"}, &out);
  CHECK(st.code() == Code::kFailedPrecondition);
  CHECK_THAT(st.message(), Catch::Contains("attempting to use uninitialized variable (input 'var')"));
  st = s->Run({}, {}, {"same"}, &out);
  CHECK_THAT(st.message(), Catch::Contains("the same variable is passed as input 1"));
}

}  // namespace
}  // namespace fb
