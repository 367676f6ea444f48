// Gradients of the element-wise math ops: float64 central-difference checks
// (tests/gradient_checker.h) including broadcasting, and closed-form gradients of small graphs.
#include "engine/client/math_ops.h"
#include "tests/gradient_checker.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::MaxGradientError;
using test::RandomDouble;
using Xs = std::vector<Output>;

constexpr double kTolerance = 1e-6;

using BinaryFn = Output (*)(const Scope&, Output, Output);

// Checks d/dx and d/dy of op(x, y) for x of shape sx and y of shape sy, values in [lo, hi).
double BinaryError(BinaryFn op, const TensorShape& sx, const TensorShape& sy, double lo = -1,
                   double hi = 1) {
  return MaxGradientError([&](const Scope& s, const Xs& x) { return op(s, x[0], x[1]); },
                          {RandomDouble(sx, lo, hi, 1), RandomDouble(sy, lo, hi, 2)});
}

TEST_CASE("Add, Sub, Mul gradients sum broadcast axes back", "[math][grad]") {
  for (BinaryFn op : {BinaryFn(ops::Add), BinaryFn(ops::Sub), BinaryFn(ops::Mul)}) {
    CHECK(BinaryError(op, {2, 3}, {2, 3}) < kTolerance);
    CHECK(BinaryError(op, {2, 3}, {3}) < kTolerance);
    CHECK(BinaryError(op, {2, 1}, {1, 3}) < kTolerance);
    CHECK(BinaryError(op, {}, {2, 2}) < kTolerance);
    CHECK(BinaryError(op, {2, 1, 3}, {4, 1}) < kTolerance);
  }
}

TEST_CASE("Div and Pow gradients for both inputs", "[math][grad]") {
  CHECK(BinaryError(ops::Div, {2, 3}, {3}, 0.5, 2) < kTolerance);
  CHECK(BinaryError(ops::Div, {3}, {2, 3}, 0.5, 2) < kTolerance);
  CHECK(BinaryError(ops::Pow, {2, 3}, {3}, 0.5, 2) < kTolerance);
  CHECK(BinaryError(ops::Pow, {}, {2, 2}, 0.5, 2) < kTolerance);
}

TEST_CASE("Pow's gradient for the exponent is 0 where the base is not positive", "[math][grad]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<double>({-2, 0, 2}));
  auto y = ops::Const(root, Tensor::FromVector<double>({2, 2, 2}));
  auto z = ops::Pow(root, x, y);
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {z}, {x, y}, {}, &grads).ok());
  auto s = test::MakeSession(root.ToGraphDef());
  auto out = test::RunOk(s.get(), {}, {grads[0].name(), grads[1].name()});
  CHECK(test::Values<double>(out[0]) == std::vector<double>{-4, 0, 4});            // 2x
  CHECK(test::Values<double>(out[1]) == std::vector<double>{0, 0, 4 * std::log(2.0)});  // x^2 ln x
}

TEST_CASE("Maximum and Minimum gradients go to the selected input", "[math][grad]") {
  CHECK(BinaryError(ops::Maximum, {2, 3}, {3}) < kTolerance);
  CHECK(BinaryError(ops::Minimum, {2, 3}, {2, 1}) < kTolerance);
}

using UnaryFn = Output (*)(const Scope&, Output);

double UnaryError(UnaryFn op, double lo, double hi) {
  return MaxGradientError([&](const Scope& s, const Xs& x) { return op(s, x[0]); },
                          {RandomDouble({2, 3}, lo, hi)});
}

TEST_CASE("Unary op gradients", "[math][grad]") {
  CHECK(UnaryError(ops::Neg, -1, 1) < kTolerance);
  CHECK(UnaryError(ops::Square, -1, 1) < kTolerance);
  CHECK(UnaryError(ops::Exp, -1, 1) < kTolerance);
  CHECK(UnaryError(ops::Log, 0.5, 2) < kTolerance);
  CHECK(UnaryError(ops::Sqrt, 0.5, 2) < kTolerance);
  CHECK(UnaryError(ops::Rsqrt, 0.5, 2) < kTolerance);
  CHECK(UnaryError(ops::Reciprocal, 0.5, 2) < kTolerance);
}

TEST_CASE("Cast passes gradients between floating types only", "[math][grad]") {
  // Through float32 and back: the derivative is 1, up to float rounding (hence the larger step).
  double err = MaxGradientError(
      [](const Scope& s, const Xs& x) {
        return ops::Cast(s, ops::Cast(s, x[0], DataType::kFloat), DataType::kDouble);
      },
      {RandomDouble({4})}, 1e-2);
  CHECK(err < 1e-4);
  // Through int32 nothing flows: x gets zeros.
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<double>({1.5, 2.5}));
  auto y = ops::Cast(root, ops::Cast(root, x, DataType::kInt32), DataType::kDouble);
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x}, {}, &grads).ok());
  auto s = test::MakeSession(root.ToGraphDef());
  CHECK(test::Values<double>(test::RunOk(s.get(), {}, {grads[0].name()})[0]) ==
        std::vector<double>{0, 0});
}

TEST_CASE("AddN and Fill gradients", "[math][grad]") {
  double err = MaxGradientError(
      [](const Scope& s, const Xs& x) { return ops::AddN(s, {x[0], x[1], ops::Mul(s, x[0], x[1])}); },
      {RandomDouble({2, 2}, -1, 1, 1), RandomDouble({2, 2}, -1, 1, 2)});
  CHECK(err < kTolerance);
  err = MaxGradientError(
      [](const Scope& s, const Xs& x) {
        return ops::Fill(s, ops::Const(s, Tensor::FromVector<int32_t>({2, 3})), x[0]);
      },
      {RandomDouble({})});
  CHECK(err < kTolerance);
}

TEST_CASE("AddSymbolicGradients of x*x + 3x is 2x + 3, an unused x gets zeros", "[math][grad]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
  auto unused = ops::Placeholder(root.WithOpName("unused"), DataType::kFloat);
  auto y = ops::Add(root, ops::Mul(root, x, x), ops::Mul(root, ops::Const(root, 3.f), x));
  std::vector<NodeOut> grads;
  Status st = AddSymbolicGradients(root.graph(), {y}, {x, unused}, {}, &grads);
  INFO(st.ToString());
  REQUIRE(st.ok());
  auto s = test::MakeSession(root.ToGraphDef());
  Tensor xv = Tensor::FromVector<float>({-2, 0, 1.5f}), uv = Tensor::FromVector<float>({7, 8});
  auto out = test::RunOk(s.get(), {{"x:0", xv}, {"unused:0", uv}}, {grads[0].name(), grads[1].name()});
  CHECK(test::Values<float>(out[0]) == std::vector<float>{-1, 3, 6});
  CHECK(test::Values<float>(out[1]) == std::vector<float>{0, 0});
}

}  // namespace
}  // namespace fb
