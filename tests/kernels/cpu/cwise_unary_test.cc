// Unary element-wise ops against closed-form values (std:: math), AddN, and dtype errors.
#include <cmath>

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

using UnaryFn = Output (*)(const Scope&, Output);

Tensor Unary(UnaryFn op, const Tensor& x) {
  return Eval([&](const Scope& s) { return op(s, ops::Const(s, x)); });
}

TEST_CASE("Neg and Square on floats and integers", "[math][cwise]") {
  ExpectEqual(Unary(ops::Neg, F({1, -2.5f, 0}, {3})), F({-1, 2.5f, -0.f}, {3}));
  ExpectEqual(Unary(ops::Neg, L({5, -7}, {2})), L({-5, 7}, {2}));
  ExpectEqual(Unary(ops::Square, I({3, -4}, {1, 2})), I({9, 16}, {1, 2}));
  ExpectEqual(Unary(ops::Square, D({1.5}, {})), D({2.25}, {}));
}

TEST_CASE("Exp, Log, Sqrt, Rsqrt, Reciprocal match std:: math", "[math][cwise]") {
  std::vector<double> x = {0.25, 1, 2, 9};
  auto apply = [&](double (*f)(double)) {
    std::vector<double> y;
    for (double v : x) y.push_back(f(v));
    return D(y, {2, 2});
  };
  Tensor in = D(x, {2, 2});
  test::ExpectClose(Unary(ops::Exp, in), apply([](double v) { return std::exp(v); }), 1e-15);
  test::ExpectClose(Unary(ops::Log, in), apply([](double v) { return std::log(v); }), 1e-15);
  test::ExpectClose(Unary(ops::Sqrt, in), apply([](double v) { return std::sqrt(v); }), 1e-15);
  test::ExpectClose(Unary(ops::Rsqrt, in), apply([](double v) { return 1 / std::sqrt(v); }), 1e-15);
  test::ExpectClose(Unary(ops::Reciprocal, in), apply([](double v) { return 1 / v; }), 1e-15);
  // float, hand values
  test::ExpectClose(Unary(ops::Sqrt, F({4, 16}, {2})), F({2, 4}, {2}));
  test::ExpectClose(Unary(ops::Log, F({1}, {1})), F({0}, {1}));
}

TEST_CASE("Unary ops on large inputs split over threads", "[math][cwise]") {
  Tensor x(DataType::kFloat, {300000});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = static_cast<float>(i % 100) / 10;
  Tensor y = Unary(ops::Exp, x);
  for (int64_t i = 0; i < x.NumElements(); i += 997)
    CHECK(y.data<float>()[i] == Approx(std::exp(x.data<float>()[i])).epsilon(1e-6));
}

TEST_CASE("Floating-only ops reject integer inputs at graph construction", "[math][cwise][errors]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::Exp(s.WithOpName("e"), ops::Const(s, I({1}, {1})));
  });
  CHECK_THAT(msg, Catch::Contains("'e'") && Catch::Contains("attr 'T' is int32, allowed: float, double"));
}

TEST_CASE("AddN sums equal-shaped inputs", "[math][cwise]") {
  Tensor got = Eval([](const Scope& s) {
    return ops::AddN(s, {ops::Const(s, F({1, 2}, {2})), ops::Const(s, F({10, 20}, {2})),
                         ops::Const(s, F({100, 200}, {2}))});
  });
  ExpectEqual(got, F({111, 222}, {2}));
  ExpectEqual(Eval([](const Scope& s) { return ops::AddN(s, {ops::Const(s, I({4}, {}))}); }),
              I({4}, {}));
  std::string msg = EvalError([](const Scope& s) {
    return ops::AddN(s.WithOpName("sum"), {ops::Const(s, F({1, 2}, {2})), ops::Const(s, F({1}, {1}))});
  });
  CHECK_THAT(msg, Catch::Contains("AddN 'sum'") &&
                      Catch::Contains("inputs must have equal shapes: input 0 is [2], input 1 is [1]"));
}

}  // namespace
}  // namespace fb
