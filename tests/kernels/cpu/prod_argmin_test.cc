// Prod and ArgMin against hand-computed values (NumPy's prod and argmin give the same, NaN
// included), Prod's gradient against central differences, with zeros in the input, and by hand.
#include <limits>

#include "engine/autodiff/gradients.h"
#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::D;
using test::Eval;
using test::EvalError;
using test::ExpectEqual;
using test::F;
using test::I;
using test::L;
using Xs = std::vector<Output>;

Tensor ProdOf(const Tensor& x, const std::vector<int>& axes, bool keep_dims = false) {
  return Eval([&](const Scope& s) { return ops::Prod(s, ops::Const(s, x), axes, keep_dims); });
}

Tensor ArgMinOf(const Tensor& x, int axis, DataType out = DataType::kInt64) {
  return Eval([&](const Scope& s) { return ops::ArgMin(s, ops::Const(s, x), axis, out); });
}

TEST_CASE("Prod over rows, columns, all axes and empty axes", "[math][reduction]") {
  Tensor m = F({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectEqual(ProdOf(m, {0}), F({4, 10, 18}, {3}));
  ExpectEqual(ProdOf(m, {-1}), F({6, 120}, {2}));
  ExpectEqual(ProdOf(m, {0, 1}, true), F({720}, {1, 1}));
  ExpectEqual(ProdOf(m, {}), m);
  ExpectEqual(ProdOf(F({}, {0, 3}), {0}), F({1, 1, 1}, {3}));  // empty product is 1
  ExpectEqual(ProdOf(I({2, -3, 4, 0, 5, 6, 7, 1}, {2, 2, 2}), {0, 2}), I({-180, 0}, {2}));
  ExpectEqual(ProdOf(L({1LL << 20, 1LL << 20, 3}, {3}), {0}), L({3LL << 40}, {}));
  ExpectEqual(ProdOf(D({0.5, 4, -1}, {3}), {0}), D({-2}, {}));
}

TEST_CASE("Prod with an out-of-range axis fails naming the node", "[math][reduction]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::Prod(s.WithOpName("p"), ops::Const(s, F({1, 2}, {2})), {1});
  });
  CHECK_THAT(msg, Catch::Contains("'p'") && Catch::Contains("out of range"));
}

TEST_CASE("ArgMin takes the first smallest value along an axis", "[math][reduction]") {
  Tensor m = F({3, 1, 2, 0, 5, 0}, {2, 3});
  ExpectEqual(ArgMinOf(m, 1), L({1, 0}, {2}));
  ExpectEqual(ArgMinOf(m, 0), L({1, 0, 1}, {3}));
  ExpectEqual(ArgMinOf(m, -1, DataType::kInt32), I({1, 0}, {2}));
  ExpectEqual(ArgMinOf(I({4, 2, 2, 9}, {4}), 0), L({1}, {}));  // ties: the first
  ExpectEqual(ArgMinOf(L({5, -7, 3, -7}, {2, 2}), 0), L({1, 0}, {2}));
  ExpectEqual(ArgMinOf(D({2, 1, 0, 3, 4, 5, 6, -1}, {2, 2, 2}), 1), L({1, 0, 0, 1}, {2, 2}));
}

TEST_CASE("ArgMin returns the index of the first NaN, as NumPy", "[math][reduction]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // np.argmin([3, nan, -1, nan]) == 1, np.argmin([nan, -5]) == 0.
  ExpectEqual(ArgMinOf(F({3, nan, -1, nan}, {4}), 0), L({1}, {}));
  ExpectEqual(ArgMinOf(F({nan, -5, 0, -2}, {2, 2}), 1), L({0, 1}, {2}));
  ExpectEqual(ArgMinOf(F({1, 2, nan, 0}, {2, 2}), 0), L({1, 1}, {2}));
}

TEST_CASE("ArgMin of an empty axis or a scalar fails naming the node", "[math][reduction]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::ArgMin(s.WithOpName("am"), ops::Const(s, F({}, {2, 0})), 1);
  });
  CHECK_THAT(msg, Catch::Contains("'am'") && Catch::Contains("empty"));
  msg = EvalError([](const Scope& s) {
    return ops::ArgMin(s.WithOpName("am2"), ops::Const(s, F({1, 2}, {2})), 2);
  });
  CHECK_THAT(msg, Catch::Contains("am2") && Catch::Contains("out of range"));
}

TEST_CASE("Prod's gradient matches central differences, zeros included", "[math][grad]") {
  auto prod = [](std::vector<int> axes, bool keep_dims) {
    return [=](const Scope& s, const Xs& x) { return ops::Prod(s, x[0], axes, keep_dims); };
  };
  for (bool keep_dims : {false, true}) {
    INFO("keep_dims " << keep_dims);
    CHECK(test::MaxGradientError(prod({0}, keep_dims), {test::RandomDouble({2, 3})}) < 1e-6);
    CHECK(test::MaxGradientError(prod({0, 2}, keep_dims), {test::RandomDouble({2, 3, 2})}) < 1e-6);
  }
  // Column 0: one zero; column 1: two zeros; column 2: none.
  Tensor x = D({0, 0, 2, 3, 0, -1, 0.5, 2, 4}, {3, 3});
  CHECK(test::MaxGradientError(prod({0}, false), {x}) < 1e-6);
  CHECK(test::MaxGradientError(prod({0, 1}, false), {D({1.5, 0, 2, -3}, {2, 2})}) < 1e-6);
}

TEST_CASE("Prod's gradient with zeros, by hand", "[math][grad]") {
  Scope root = Scope::NewRootScope();
  // Rows: [2, 0, 3] (one zero), [0, 0, 5] (two), [1, 2, 4] (none).
  auto x = ops::Const(root, D({2, 0, 3, 0, 0, 5, 1, 2, 4}, {3, 3}));
  auto y = ops::Prod(root, x, {1});
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x}, {}, &grads).ok());
  auto session = test::MakeSession(root.ToGraphDef());
  CHECK(test::Values<double>(test::RunOk(session.get(), {}, {grads[0].name()})[0]) ==
        std::vector<double>{0, 6, 0, 0, 0, 0, 8, 4, 2});
}

}  // namespace
}  // namespace fb
