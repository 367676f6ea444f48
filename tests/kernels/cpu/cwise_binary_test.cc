// Broadcasting binary ops against hand-computed values, one case per broadcast path
// (kernels/cpu/bcast.h), plus a large randomised case against a naive loop.
#include <random>

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

TEST_CASE("Add, Sub, Mul, Div of equal shapes", "[math][cwise]") {
  Tensor x = F({1, 2, 3, 4, 5, 6}, {2, 3}), y = F({6, 5, 4, 3, 2, 1}, {2, 3});
  ExpectEqual(Binary(ops::Add, x, y), F({7, 7, 7, 7, 7, 7}, {2, 3}));
  ExpectEqual(Binary(ops::Sub, x, y), F({-5, -3, -1, 1, 3, 5}, {2, 3}));
  ExpectEqual(Binary(ops::Mul, x, y), F({6, 10, 12, 12, 10, 6}, {2, 3}));
  ExpectEqual(Binary(ops::Div, x, y), F({1.f / 6, 2.f / 5, 3.f / 4, 4.f / 3, 5.f / 2, 6.f}, {2, 3}));
  ExpectEqual(Binary(ops::Add, D({1.5}, {1}), D({2.25}, {1})), D({3.75}, {1}));
  ExpectEqual(Binary(ops::Mul, L({1LL << 40}, {}), L({4}, {})), L({1LL << 42}, {}));
}

TEST_CASE("A scalar operand broadcasts on either side", "[math][cwise]") {
  Tensor x = F({1, 2, 3, 4}, {2, 2});
  ExpectEqual(Binary(ops::Sub, x, F({1}, {})), F({0, 1, 2, 3}, {2, 2}));
  ExpectEqual(Binary(ops::Sub, F({10}, {}), x), F({9, 8, 7, 6}, {2, 2}));
  // A [1,1] operand counts as a scalar and the output takes the larger rank.
  ExpectEqual(Binary(ops::Mul, F({2}, {1, 1}), F({1, 2, 3}, {3})), F({2, 4, 6}, {1, 3}));
}

TEST_CASE("Trailing-dimension broadcast repeats a row", "[math][cwise]") {
  Tensor m = I({1, 2, 3, 4, 5, 6}, {2, 3}), row = I({10, 20, 30}, {3});
  ExpectEqual(Binary(ops::Add, m, row), I({11, 22, 33, 14, 25, 36}, {2, 3}));
  ExpectEqual(Binary(ops::Sub, row, m), I({9, 18, 27, 6, 15, 24}, {2, 3}));
  // [2,2,3] + [2,3]: the row block is [2,3].
  Tensor cube = F({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 2, 3});
  ExpectEqual(Binary(ops::Add, cube, F({100, 100, 100, 200, 200, 200}, {2, 3})),
              F({100, 101, 102, 203, 204, 205, 106, 107, 108, 209, 210, 211}, {2, 2, 3}));
}

TEST_CASE("General broadcasts: columns, outer products, middle axes", "[math][cwise]") {
  // [2,1] x [1,3]: an outer product.
  ExpectEqual(Binary(ops::Mul, F({1, 2}, {2, 1}), F({1, 10, 100}, {1, 3})),
              F({1, 10, 100, 2, 20, 200}, {2, 3}));
  // [2,3] - [2,1]: each row minus its own value.
  ExpectEqual(Binary(ops::Sub, F({1, 2, 3, 4, 5, 6}, {2, 3}), F({1, 4}, {2, 1})),
              F({0, 1, 2, 0, 1, 2}, {2, 3}));
  // [2,1,3] + [4,1] -> [2,4,3].
  Tensor got = Binary(ops::Add, F({0, 1, 2, 3, 4, 5}, {2, 1, 3}), F({0, 10, 20, 30}, {4, 1}));
  REQUIRE(got.shape() == TensorShape({2, 4, 3}));
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 3; ++c) CHECK(got.data<float>()[(a * 4 + b) * 3 + c] == a * 3 + c + 10 * b);
  // [3] + [1,3] is element-wise with a leading 1.
  ExpectEqual(Binary(ops::Add, I({1, 2, 3}, {3}), I({1, 1, 1}, {1, 3})), I({2, 3, 4}, {1, 3}));
}

TEST_CASE("Integer Div truncates toward zero and rejects a zero divisor", "[math][cwise][errors]") {
  ExpectEqual(Binary(ops::Div, I({7, -7, 6}, {3}), I({2, 2, -4}, {3})), I({3, -3, -1}, {3}));
  std::string msg = EvalError([](const Scope& s) {
    return ops::Div(s.WithOpName("n"), ops::Const(s, I({1, 2}, {2})), ops::Const(s, I({1, 0}, {2})));
  });
  CHECK_THAT(msg, Catch::Contains("Div 'n'") && Catch::Contains("integer division by zero"));
}

TEST_CASE("Pow, Maximum and Minimum", "[math][cwise]") {
  ExpectEqual(Binary(ops::Pow, D({2, 9, 4}, {3}), D({3, 0.5, -1}, {3})), D({8, 3, 0.25}, {3}));
  ExpectEqual(Binary(ops::Maximum, F({1, 5, -2}, {3}), F({3}, {})), F({3, 5, 3}, {3}));
  ExpectEqual(Binary(ops::Minimum, I({1, 5, -2}, {3}), I({3}, {})), I({1, 3, -2}, {3}));
}

TEST_CASE("Comparisons broadcast and give bool", "[math][cwise]") {
  Tensor x = F({1, 2, 3, 4}, {2, 2});
  ExpectEqual(Binary(ops::Greater, x, F({2, 3}, {2})), B({false, false, true, true}, {2, 2}));
  ExpectEqual(Binary(ops::Less, x, F({2.5}, {})), B({true, true, false, false}, {2, 2}));
  ExpectEqual(Binary(ops::Equal, L({1, 2, 3}, {3}), L({2}, {})), B({false, true, false}, {3}));
  ExpectEqual(Binary(ops::Equal, B({true, false}, {2}), B({true}, {1})), B({true, false}, {2}));
}

TEST_CASE("Incompatible shapes and dtypes are errors naming the node", "[math][cwise][errors]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::Add(s.WithOpName("n"), ops::Const(s, F({1, 2, 3, 4, 5, 6}, {2, 3})),
                    ops::Const(s, F({1, 2, 3, 4}, {4})));
  });
  CHECK_THAT(msg, Catch::Contains("Add 'n'") && Catch::Contains("incompatible shapes [2,3] and [4]"));
  msg = EvalError([](const Scope& s) {
    return ops::Mul(s.WithOpName("m"), ops::Const(s, F({1}, {1})), ops::Const(s, I({1}, {1})));
  });
  CHECK_THAT(msg, Catch::Contains("'m'") && Catch::Contains("int32"));
  msg = EvalError([](const Scope& s) {
    return ops::Pow(s.WithOpName("p"), ops::Const(s, I({1}, {1})), ops::Const(s, I({1}, {1})));
  });
  CHECK_THAT(msg, Catch::Contains("'p'") && Catch::Contains("attr 'T' is int32, allowed: float, double"));
}

// Reference: out[i] from the multi-index of i, reading broadcast (size-1) dims at 0.
std::vector<float> NaiveAdd(const Tensor& x, const Tensor& y, const TensorShape& out) {
  const int rank = out.rank();
  std::vector<int64_t> index(rank);
  auto offset = [&](const Tensor& t) {
    int64_t off = 0;
    for (int d = 0; d < t.dims(); ++d)
      off = off * t.dim_size(d) + (t.dim_size(d) == 1 ? 0 : index[rank - t.dims() + d]);
    return off;
  };
  std::vector<float> r(out.num_elements());
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    for (int64_t d = rank - 1, rest = i; d >= 0; --d) index[d] = rest % out.dim_size(d), rest /= out.dim_size(d);
    r[i] = x.data<float>()[offset(x)] + y.data<float>()[offset(y)];
  }
  return r;
}

TEST_CASE("Large broadcasts split over threads match a naive loop", "[math][cwise]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1, 1);
  auto random = [&](const TensorShape& s) {
    Tensor t(DataType::kFloat, s);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(rng);
    return t;
  };
  const std::pair<TensorShape, TensorShape> cases[] = {
      {{40, 30, 50}, {40, 30, 50}},  // same shape
      {{40, 30, 50}, {50}},          // row
      {{40, 1, 50}, {30, 1}},        // general, short rows
      {{7, 1, 3, 1000}, {5, 1, 1}},  // general, rows of 1000
  };
  for (const auto& [sx, sy] : cases) {
    Tensor x = random(sx), y = random(sy);
    Tensor got = Binary(ops::Add, x, y);
    std::vector<float> want = NaiveAdd(x, y, got.shape());
    INFO(sx.DebugString() << " + " << sy.DebugString());
    CHECK(test::Values<float>(got) == want);
  }
}

}  // namespace
}  // namespace fb
