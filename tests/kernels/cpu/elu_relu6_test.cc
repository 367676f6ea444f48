// Relu6, Elu, their gradient ops and L2Loss: forward values computed by hand (closed forms,
// written into the tests), gradients checked numerically in float64 (tests/gradient_checker.h)
// away from Relu6's kinks, and TensorFlow's boundary convention (gradient 0 at 0 and 6).
#include <cmath>
#include <limits>

#include "engine/autodiff/gradients.h"
#include "engine/client/nn_ops.h"
#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::D;
using test::Eval;
using test::EvalError;
using test::ExpectEqual;
using test::F;
using Xs = std::vector<Output>;

TEST_CASE("Relu6 clips to [0, 6] and keeps NaN", "[nn][nn-activation]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor y = Eval([&](const Scope& s) {
    return ops::Relu6(s, ops::Const(s, F({-3, 0, 2.5f, 6, 7, nan}, {2, 3})));
  });
  CHECK(y.shape() == TensorShape{2, 3});
  const std::vector<float> want{0, 0, 2.5f, 6, 6};
  for (int i = 0; i < 5; ++i) CHECK(y.data<float>()[i] == want[i]);
  CHECK(std::isnan(y.data<float>()[5]));
}

TEST_CASE("Elu is exp(x) - 1 below zero and x above", "[nn][nn-activation]") {
  Tensor y = Eval([&](const Scope& s) {
    return ops::Elu(s, ops::Const(s, D({-2, -0.5, 0, 1.5}, {4})));
  });
  // exp(-2) - 1 = -0.8646647167633873, exp(-0.5) - 1 = -0.3934693402873666.
  test::ExpectClose(y, D({-0.8646647167633873, -0.3934693402873666, 0, 1.5}, {4}), 1e-12, 1e-12);
}

TEST_CASE("Relu6Grad is 0 at the boundaries 0 and 6, EluGrad uses the output",
          "[nn][nn-activation]") {
  Tensor g = F({1, 2, 3, 4, 5, 6}, {6});
  Tensor relu6 = Eval([&](const Scope& s) {
    return ops::Relu6Grad(s, ops::Const(s, g), ops::Const(s, F({-1, 0, 0.5f, 5.9f, 6, 7}, {6})));
  });
  ExpectEqual(relu6, F({0, 0, 3, 4, 0, 0}, {6}));
  // outputs < 0: g * (y + 1): 1 * 0.5, 2 * 0.75; else g.
  Tensor elu = Eval([&](const Scope& s) {
    return ops::EluGrad(s, ops::Const(s, F({1, 2, 3, 4}, {4})),
                        ops::Const(s, F({-0.5f, -0.25f, 0, 2}, {4})));
  });
  ExpectEqual(elu, F({0.5f, 1.5f, 3, 4}, {4}));
}

TEST_CASE("L2Loss is sum(x^2) / 2, 0 for an empty tensor", "[nn][nn-activation]") {
  ExpectEqual(Eval([](const Scope& s) {
                return ops::L2Loss(s, ops::Const(s, F({1, -2, 3}, {3})));
              }),
              F({7}, {}));
  ExpectEqual(Eval([](const Scope& s) {
                return ops::L2Loss(s, ops::Const(s, D({1.5, 2, 0.5, 1}, {2, 2})));
              }),
              D({3.75}, {}));
  ExpectEqual(Eval([](const Scope& s) {
                return ops::L2Loss(s, ops::Const(s, F({}, {0, 3})));
              }),
              F({0}, {}));
}

TEST_CASE("Relu6, Elu, L2Loss gradients match central differences", "[nn][grad]") {
  // Away from Relu6's kinks at 0 and 6, where the derivative is not defined.
  Tensor x = D({-2, -0.7, 0.3, 1.2, 4.5, 5.5, 6.4, 9}, {2, 4});
  CHECK(test::MaxGradientError([](const Scope& s, const Xs& in) { return ops::Relu6(s, in[0]); },
                               {x}) < 1e-6);
  CHECK(test::MaxGradientError([](const Scope& s, const Xs& in) { return ops::Elu(s, in[0]); },
                               {x}) < 1e-6);
  CHECK(test::MaxGradientError([](const Scope& s, const Xs& in) { return ops::L2Loss(s, in[0]); },
                               {test::RandomDouble({3, 2})}) < 1e-6);
}

TEST_CASE("Relu6's symbolic gradient is 0 at exactly 0 and 6", "[nn][grad]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, D({0, 3, 6}, {3}));
  auto y = ops::Relu6(root, x);
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x}, {}, &grads).ok());
  auto s = test::MakeSession(root.ToGraphDef());
  CHECK(test::Values<double>(test::RunOk(s.get(), {}, {grads[0].name()})[0]) ==
        std::vector<double>{0, 1, 0});
}

TEST_CASE("Relu6Grad and EluGrad reject inputs of different shapes", "[nn][nn-activation]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::Relu6Grad(s.WithOpName("r6g"), ops::Const(s, F({1, 2, 3}, {3})),
                          ops::Const(s, F({1, 2}, {2})));
  });
  CHECK_THAT(msg, Catch::Contains("'r6g'") && Catch::Contains("[3]") && Catch::Contains("[2]"));
  msg = EvalError([](const Scope& s) {
    return ops::EluGrad(s.WithOpName("eg"), ops::Const(s, F({1, 2, 3}, {3})),
                        ops::Const(s, F({1, 2}, {2})));
  });
  CHECK_THAT(msg, Catch::Contains("'eg'") && Catch::Contains("[3]") && Catch::Contains("[2]"));
}

}  // namespace
}  // namespace fb
