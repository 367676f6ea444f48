// GreaterEqual, LessEqual, NotEqual, LogicalAnd, LogicalOr, LogicalNot against hand-computed
// truth tables, with equal shapes, scalars and general broadcasts, and NaN operands (IEEE 754:
// NaN compares unequal to everything).
#include <limits>

#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::B;
using test::D;
using test::Eval;
using test::EvalError;
using test::ExpectEqual;
using test::F;
using test::I;
using test::L;

using test::Binary;

TEST_CASE("GreaterEqual, LessEqual, NotEqual of equal shapes and scalars", "[math][cwise]") {
  Tensor x = F({1, 2, 3, 4}, {2, 2}), y = F({2, 2, 2, 2}, {2, 2});
  ExpectEqual(Binary(ops::GreaterEqual, x, y), B({false, true, true, true}, {2, 2}));
  ExpectEqual(Binary(ops::LessEqual, x, y), B({true, true, false, false}, {2, 2}));
  ExpectEqual(Binary(ops::NotEqual, x, y), B({true, false, true, true}, {2, 2}));
  ExpectEqual(Binary(ops::GreaterEqual, I({3}, {}), I({1, 3, 5}, {3})),
              B({true, true, false}, {3}));
  ExpectEqual(Binary(ops::LessEqual, L({1LL << 40, 7}, {2}), L({7}, {})), B({false, true}, {2}));
  ExpectEqual(Binary(ops::NotEqual, D({0.5, 1.5}, {2}), D({0.5}, {1})), B({false, true}, {2}));
  ExpectEqual(Binary(ops::NotEqual, B({true, false, true}, {3}), B({true}, {})),
              B({false, true, false}, {3}));
}

TEST_CASE("Comparisons broadcast a column against a row", "[math][cwise]") {
  // [2,1] vs [1,3]: row i compares x[i] with each of y.
  Tensor col = I({1, 2}, {2, 1}), row = I({0, 1, 2}, {1, 3});
  ExpectEqual(Binary(ops::GreaterEqual, col, row),
              B({true, true, false, true, true, true}, {2, 3}));
  ExpectEqual(Binary(ops::LessEqual, col, row), B({false, true, true, false, false, true}, {2, 3}));
  ExpectEqual(Binary(ops::NotEqual, col, row), B({true, false, true, true, true, false}, {2, 3}));
}

TEST_CASE("NaN operands: only NotEqual is true", "[math][cwise]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = F({nan, nan, 1}, {3}), y = F({nan, 1, nan}, {3});
  ExpectEqual(Binary(ops::GreaterEqual, x, y), B({false, false, false}, {3}));
  ExpectEqual(Binary(ops::LessEqual, x, y), B({false, false, false}, {3}));
  ExpectEqual(Binary(ops::NotEqual, x, y), B({true, true, true}, {3}));
}

TEST_CASE("LogicalAnd, LogicalOr, LogicalNot truth tables with broadcasting", "[math][cwise]") {
  Tensor x = B({false, false, true, true}, {4}), y = B({false, true, false, true}, {4});
  ExpectEqual(Binary(ops::LogicalAnd, x, y), B({false, false, false, true}, {4}));
  ExpectEqual(Binary(ops::LogicalOr, x, y), B({false, true, true, true}, {4}));
  ExpectEqual(Binary(ops::LogicalAnd, B({true, false}, {2, 1}), B({true, false, true}, {3})),
              B({true, false, true, false, false, false}, {2, 3}));
  ExpectEqual(Binary(ops::LogicalOr, B({false}, {}), x), x);
  ExpectEqual(Eval([&](const Scope& s) { return ops::LogicalNot(s, ops::Const(s, x)); }),
              B({true, true, false, false}, {4}));
}

TEST_CASE("Comparisons of incompatible shapes fail naming the node", "[math][cwise]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::GreaterEqual(s.WithOpName("ge"), ops::Const(s, F({1, 2, 3}, {3})),
                             ops::Const(s, F({1, 2}, {2})));
  });
  CHECK_THAT(msg, Catch::Contains("'ge'") && Catch::Contains("[3]") && Catch::Contains("[2]"));
  msg = EvalError([](const Scope& s) {
    return ops::LogicalOr(s.WithOpName("or"), ops::Const(s, B({true, false}, {2})),
                          ops::Const(s, B({true, false, true}, {3})));
  });
  CHECK_THAT(msg, Catch::Contains("'or'"));
  // Logical ops take bool only: a float operand is rejected when the graph is built.
  msg = EvalError([](const Scope& s) {
    return ops::LogicalNot(s.WithOpName("not"), ops::Const(s, F({1}, {1})));
  });
  CHECK_THAT(msg, Catch::Contains("not"));
}

}  // namespace
}  // namespace fb
