// Integer Div of the lowest value by -1, whose quotient does not fit (x86 raises SIGFPE): it
// wraps to the lowest value, as NumPy and TensorFlow do, on every broadcast path and for every
// integer dtype with a Div kernel (int32, int64).
#include <limits>

#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::Eval;
using test::ExpectEqual;

Tensor Div(const Tensor& x, const Tensor& y) {
  return Eval([&](const Scope& s) { return ops::Div(s, ops::Const(s, x), ops::Const(s, y)); });
}

template <typename T>
Tensor V(const std::vector<T>& v, const TensorShape& s) {
  return Tensor::FromVector<T>(v, s);
}

TEMPLATE_TEST_CASE("Integer Div of the lowest value by -1 wraps to the lowest value",
                   "[math][cwise]", int32_t, int64_t) {
  using T = TestType;
  const T lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  // Equal shapes.
  ExpectEqual(Div(V<T>({lo, lo, 7, -7, lo + 1, lo}, {6}), V<T>({-1, 1, -1, -1, -1, 2}, {6})),
              V<T>({lo, lo, -7, 7, hi, lo / 2}, {6}));
  // Scalar divisor, scalar dividend.
  ExpectEqual(Div(V<T>({lo, 5, lo}, {3}), V<T>({-1}, {})), V<T>({lo, -5, lo}, {3}));
  ExpectEqual(Div(V<T>({lo}, {}), V<T>({-1, 2, -1}, {3})), V<T>({lo, lo / 2, lo}, {3}));
  // Row broadcast both ways, and a general broadcast.
  ExpectEqual(Div(V<T>({lo, lo, 6, 6}, {2, 2}), V<T>({-1, 2}, {2})),
              V<T>({lo, lo / 2, -6, 3}, {2, 2}));
  ExpectEqual(Div(V<T>({lo, 8}, {2}), V<T>({-1, -1, 1, 2}, {2, 2})),
              V<T>({lo, -8, lo, 4}, {2, 2}));
  ExpectEqual(Div(V<T>({lo, 4}, {2, 1}), V<T>({-1, 2}, {1, 2})),
              V<T>({lo, lo / 2, -4, 2}, {2, 2}));
  // A long vector (the parallel path).
  const int64_t n = 100000;
  ExpectEqual(Div(V<T>(std::vector<T>(n, lo), {n}), V<T>({-1}, {})),
              V<T>(std::vector<T>(n, lo), {n}));
}

TEMPLATE_TEST_CASE("Integer Div by zero stays InvalidArgument", "[math][cwise]", int32_t,
                   int64_t) {
  using T = TestType;
  std::string msg = test::EvalError([](const Scope& s) {
    return ops::Div(s, ops::Const(s, V<T>({std::numeric_limits<T>::min(), 1}, {2})),
                    ops::Const(s, V<T>({-1, 0}, {2})));
  });
  CHECK_THAT(msg, Catch::Contains("integer division by zero"));
}

}  // namespace
}  // namespace fb
