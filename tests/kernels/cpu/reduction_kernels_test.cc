// Sum, Mean, Max, Min and ArgMax over arbitrary axes against hand-computed values, plus large
// reductions (parallel and blocked paths) against naive loops.
#include <cfloat>
#include <cmath>
#include <random>

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

using ReduceFn = Output (*)(const Scope&, Output, const std::vector<int>&, bool);

Tensor Reduce(ReduceFn op, const Tensor& x, const std::vector<int>& axes, bool keep_dims = false) {
  return Eval([&](const Scope& s) { return op(s, ops::Const(s, x), axes, keep_dims); });
}

// [[1, 2, 3], [4, 5, 6]]
Tensor M() { return F({1, 2, 3, 4, 5, 6}, {2, 3}); }

TEST_CASE("Sum over rows, columns, negative axes and everything", "[math][reduction]") {
  ExpectEqual(Reduce(ops::Sum, M(), {0}), F({5, 7, 9}, {3}));
  ExpectEqual(Reduce(ops::Sum, M(), {1}), F({6, 15}, {2}));
  ExpectEqual(Reduce(ops::Sum, M(), {-1}), F({6, 15}, {2}));
  ExpectEqual(Reduce(ops::Sum, M(), {0, 1}), F({21}, {}));
  ExpectEqual(Reduce(ops::Sum, M(), {1, -1, 1}), F({6, 15}, {2}));  // duplicates allowed
  ExpectEqual(Reduce(ops::Sum, M(), {}), M());                        // nothing reduced
  ExpectEqual(Reduce(ops::Sum, M(), {-2}, true), F({5, 7, 9}, {1, 3}));
  ExpectEqual(Reduce(ops::Sum, M(), {0, 1}, true), F({21}, {1, 1}));
}

TEST_CASE("Sum over non-adjacent axes of a 3-D tensor", "[math][reduction]") {
  // x[a][b][c] = 100a + 10b + c, shape [2,3,4].
  std::vector<int32_t> v;
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) v.push_back(100 * a + 10 * b + c);
  Tensor x = I(v, {2, 3, 4});
  // Over a and c: 8 terms: 4 * (0 + 100) + 2 * 4 * 10b + 2 * (0+1+2+3).
  ExpectEqual(Reduce(ops::Sum, x, {0, 2}), I({412, 492, 572}, {3}));
  ExpectEqual(Reduce(ops::Sum, x, {0, 2}, true), I({412, 492, 572}, {1, 3, 1}));
  // Over b: 3 terms: 3 * (100a + c) + 30.
  ExpectEqual(Reduce(ops::Sum, x, {1}), I({30, 33, 36, 39, 330, 333, 336, 339}, {2, 4}));
  // A size-1 axis among the reduced ones.
  ExpectEqual(Reduce(ops::Sum, F({1, 2, 3, 4}, {2, 1, 2}), {1, 2}), F({3, 7}, {2}));
}

TEST_CASE("Mean, Max and Min", "[math][reduction]") {
  ExpectEqual(Reduce(ops::Mean, M(), {0}), F({2.5, 3.5, 4.5}, {3}));
  ExpectEqual(Reduce(ops::Mean, I({1, 2, 4, 7}, {2, 2}), {1}), I({1, 5}, {2}));  // truncates
  ExpectEqual(Reduce(ops::Max, F({1, 9, 3, 4, -5, 6}, {2, 3}), {-1}), F({9, 6}, {2}));
  ExpectEqual(Reduce(ops::Min, F({1, 9, 3, 4, -5, 6}, {2, 3}), {0}, true), F({1, -5, 3}, {1, 3}));
  ExpectEqual(Reduce(ops::Max, L({3, -8}, {2}), {0}), L({3}, {}));
}

TEST_CASE("Reductions over an empty axis give the identity", "[math][reduction]") {
  Tensor empty(DataType::kFloat, {2, 0});
  ExpectEqual(Reduce(ops::Sum, empty, {1}), F({0, 0}, {2}));
  ExpectEqual(Reduce(ops::Max, empty, {1}), F({-FLT_MAX, -FLT_MAX}, {2}));
  ExpectEqual(Reduce(ops::Min, Tensor(DataType::kInt32, {0}), {0}), I({INT32_MAX}, {}));
  CHECK(std::isnan(Reduce(ops::Mean, empty, {1}).data<float>()[0]));
  ExpectEqual(Reduce(ops::Sum, empty, {0}), F({}, {0}));
}

TEST_CASE("Bad reduction axes are errors naming the node", "[math][reduction][errors]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::Sum(s.WithOpName("s"), ops::Const(s, M()), {2});
  });
  CHECK_THAT(msg, Catch::Contains("Sum 's'") &&
                      Catch::Contains("reduction index 2 is out of range for input of rank 2"));
  msg = EvalError([](const Scope& s) {
    return ops::Mean(s.WithOpName("m"), ops::Const(s, M()), ops::Const(s, I({0, 1}, {1, 2})));
  });
  CHECK_THAT(msg, Catch::Contains("reduction_indices must be a scalar or vector, got shape [1,2]"));
}

TEST_CASE("ArgMax along an axis, first index on ties", "[math][reduction]") {
  Tensor x = F({1, 9, 9, 4, -5, 6}, {2, 3});
  ExpectEqual(Eval([&](const Scope& s) { return ops::ArgMax(s, ops::Const(s, x), 1); }),
              L({1, 2}, {2}));
  ExpectEqual(Eval([&](const Scope& s) { return ops::ArgMax(s, ops::Const(s, x), -2); }),
              L({1, 0, 0}, {3}));
  ExpectEqual(Eval([&](const Scope& s) {
                return ops::ArgMax(s, ops::Const(s, I({3, 1, 3}, {3})), 0, DataType::kInt32);
              }),
              I({0}, {}));
  std::string msg = EvalError([](const Scope& s) {
    return ops::ArgMax(s.WithOpName("am"), ops::Const(s, Tensor(DataType::kFloat, {2, 0})), 1);
  });
  CHECK_THAT(msg, Catch::Contains("ArgMax 'am'") &&
                      Catch::Contains("reduction axis 1 is empty in shape [2,0]"));
}

TEST_CASE("Large reductions split over threads match naive sums", "[math][reduction]") {
  std::mt19937 rng(3);
  std::uniform_int_distribution<int> dist(-100, 100);
  Tensor x(DataType::kInt64, {30, 200, 50});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<int64_t>()[i] = dist(rng);
  const int64_t* p = x.data<int64_t>();
  auto at = [&](int a, int b, int c) { return p[(a * 200 + b) * 50 + c]; };
  Tensor all = Reduce(ops::Sum, x, {0, 1, 2});
  int64_t total = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) total += p[i];
  CHECK(all.scalar<int64_t>() == total);
  Tensor mid = Reduce(ops::Max, x, {1});
  Tensor outer = Reduce(ops::Sum, x, {0, 2});
  for (int a = 0; a < 30; a += 7)
    for (int c = 0; c < 50; c += 11) {
      int64_t m = INT64_MIN;
      for (int b = 0; b < 200; ++b) m = std::max(m, at(a, b, c));
      CHECK(mid.data<int64_t>()[a * 50 + c] == m);
    }
  for (int b = 0; b < 200; b += 13) {
    int64_t sum = 0;
    for (int a = 0; a < 30; ++a)
      for (int c = 0; c < 50; ++c) sum += at(a, b, c);
    CHECK(outer.data<int64_t>()[b] == sum);
  }
}

}  // namespace
}  // namespace fb
