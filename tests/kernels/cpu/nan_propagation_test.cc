// NaN propagation of every max-like CPU kernel, as TensorFlow and NumPy define it: Maximum,
// Minimum, the Max and Min reductions, MaxPool and Relu return NaN when a NaN is among their
// operands; ArgMax returns the index of the first NaN; the gradients go to the NaN position.
// Each case puts a NaN at every position of small inputs (one row or image per position, so one
// Session run covers them all) and in long vectors (the vectorised and multi-block paths).
#include <cmath>
#include <limits>

#include "engine/autodiff/gradients.h"
#include "engine/client/nn_ops.h"
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::Eval;

template <typename T>
constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();

// [rows, n] with row r holding ramp values (distinct, mixed sign) and a NaN at column r when
// r < n (rows from n on have none).
template <typename T>
Tensor NaNDiagonal(int64_t rows, int64_t n) {
  Tensor t(DataTypeToEnum<T>::value, TensorShape{rows, n});
  T* p = t.data<T>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < n; ++c)
      p[r * n + c] = c == r ? kNaN<T> : static_cast<T>((r * 7 + c * 13) % 29) - T(14);
  return t;
}

template <typename T>
T At(const Tensor& t, int64_t i) {
  return t.data<T>()[i];
}

// Checks each output element: NaN when `nan_expected(i)`, else `want(i)` exactly.
template <typename T, typename NanFn, typename WantFn>
void CheckElements(const Tensor& got, NanFn nan_expected, WantFn want) {
  for (int64_t i = 0; i < got.NumElements(); ++i) {
    INFO("element " << i << " of " << got.DebugString(16));
    if (nan_expected(i)) {
      CHECK(std::isnan(At<T>(got, i)));
    } else {
      CHECK(At<T>(got, i) == want(i));
    }
  }
}

using BinaryFn = Output (*)(const Scope&, Output, Output);

TEMPLATE_TEST_CASE("Maximum and Minimum return NaN for a NaN operand at any position and path",
                   "[math][cwise][nan]", float, double) {
  using T = TestType;
  for (int64_t n : {1, 2, 3, 5, 8, 9, 16, 17, 33}) {
    INFO("n = " << n);
    Tensor x = NaNDiagonal<T>(n + 1, n);  // NaN in x; the last row has none
    Tensor y(x.dtype(), x.shape());
    y.flat<T>() = T(0.5);
    for (auto [op, is_max] : {std::pair<BinaryFn, bool>{ops::Maximum, true},
                              std::pair<BinaryFn, bool>{ops::Minimum, false}}) {
      auto ref = [&](T a, T b) { return is_max ? std::max(a, b) : std::min(a, b); };
      auto nan_at = [&](int64_t i) { return i / n == i % n; };
      for (bool swap : {false, true}) {  // NaN in x, then in y
        INFO("max " << is_max << " swap " << swap);
        Tensor got = Eval([&](const Scope& s) {
          Output a = ops::Const(s, x), b = ops::Const(s, y);
          return swap ? op(s, b, a) : op(s, a, b);
        });
        CheckElements<T>(got, nan_at, [&](int64_t i) { return ref(At<T>(x, i), T(0.5)); });
        // Scalar and row broadcasts of the NaN operand against the other.
        Tensor scalar = Eval([&](const Scope& s) {
          Output a = ops::Const(s, x), b = ops::Const(s, T(0.5));
          return swap ? op(s, b, a) : op(s, a, b);
        });
        CheckElements<T>(scalar, nan_at, [&](int64_t i) { return ref(At<T>(x, i), T(0.5)); });
        Tensor row = Eval([&](const Scope& s) {
          Output a = ops::Const(s, x), b = ops::Const(s, x.Slice(n, n + 1).DeepCopy()
                                                         .Reshaped(TensorShape{n}));
          return swap ? op(s, b, a) : op(s, a, b);
        });
        CheckElements<T>(row, nan_at, [&](int64_t i) {
          return ref(At<T>(x, i), At<T>(x, n * n + i % n));
        });
      }
      // A NaN scalar against a long vector.
      Tensor ones = Tensor::FromVector<T>(std::vector<T>(1000, T(1)));
      Tensor all = Eval([&](const Scope& s) {
        return op(s, ops::Const(s, kNaN<T>), ops::Const(s, ones));
      });
      CheckElements<T>(all, [](int64_t) { return true; }, [](int64_t) { return T(0); });
    }
  }
}

using ReduceFn = Output (*)(const Scope&, Output, const std::vector<int>&, bool);

TEMPLATE_TEST_CASE("Max and Min reductions return NaN for a NaN at any position, on any axis",
                   "[math][reduction][nan]", float, double) {
  using T = TestType;
  for (auto [op, is_max] : {std::pair<ReduceFn, bool>{ops::Max, true},
                            std::pair<ReduceFn, bool>{ops::Min, false}}) {
    for (int64_t n : {1, 2, 3, 4, 7, 8, 9, 16, 17, 31, 64, 65}) {
      INFO("max " << is_max << " n = " << n);
      // [n + 1, n]: row r < n has its NaN at column r, the last row none; every column has one.
      Tensor x = NaNDiagonal<T>(n + 1, n);
      auto ref_row = [&](int64_t r) {
        T best = At<T>(x, r * n);
        for (int64_t c = 1; c < n; ++c)
          best = is_max ? std::max(best, At<T>(x, r * n + c)) : std::min(best, At<T>(x, r * n + c));
        return best;
      };
      Tensor rows = Eval([&](const Scope& s) { return op(s, ops::Const(s, x), {1}, false); });
      CheckElements<T>(rows, [&](int64_t r) { return r < n; }, ref_row);
      Tensor cols = Eval([&](const Scope& s) { return op(s, ops::Const(s, x), {0}, false); });
      CheckElements<T>(cols, [](int64_t) { return true; }, [](int64_t) { return T(0); });
      // [n + 1, n, 3] reduced over axes 0 and 2 (the strided accumulation, then rows).
      Tensor x3(x.dtype(), TensorShape{n + 1, n, 3});
      for (int64_t i = 0; i < x.NumElements(); ++i)
        for (int k = 0; k < 3; ++k) x3.data<T>()[i * 3 + k] = At<T>(x, i) + T(k);
      Tensor outer = Eval([&](const Scope& s) { return op(s, ops::Const(s, x3), {0, 2}, false); });
      CheckElements<T>(outer, [](int64_t) { return true; }, [](int64_t) { return T(0); });
    }
    // One long vector (the multi-block path): a NaN at each of several positions, block edges
    // included, and none.
    const int64_t len = 100003;
    for (int64_t pos : {int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{7}, int64_t{8}, int64_t{15},
                        int64_t{32767}, int64_t{32768}, int64_t{65537}, len - 1}) {
      INFO("max " << is_max << " NaN at " << pos);
      Tensor v(DataTypeToEnum<T>::value, TensorShape{len});
      for (int64_t i = 0; i < len; ++i) v.data<T>()[i] = static_cast<T>(i % 1000) - T(500);
      if (pos >= 0) v.data<T>()[pos] = kNaN<T>;
      Tensor got = Eval([&](const Scope& s) { return op(s, ops::Const(s, v), {0}, false); });
      if (pos >= 0) CHECK(std::isnan(At<T>(got, 0)));
      else CHECK(At<T>(got, 0) == (is_max ? T(499) : T(-500)));
    }
  }
}

TEMPLATE_TEST_CASE("ArgMax returns the index of the first NaN", "[math][reduction][nan]", float,
                   double) {
  using T = TestType;
  for (int64_t n : {1, 2, 3, 8, 9, 17}) {
    INFO("n = " << n);
    Tensor x = NaNDiagonal<T>(n + 1, n);
    Tensor got = Eval([&](const Scope& s) { return ops::ArgMax(s, ops::Const(s, x), 1); });
    for (int64_t r = 0; r < n; ++r) CHECK(At<int64_t>(got, r) == r);
    // The last row (no NaN): its first largest value.
    int64_t best = 0;
    for (int64_t c = 1; c < n; ++c)
      if (At<T>(x, n * n + c) > At<T>(x, n * n + best)) best = c;
    CHECK(At<int64_t>(got, n) == best);
  }
  // Two NaNs, the larger value between them: the first NaN.
  Tensor v = Tensor::FromVector<T>({5, kNaN<T>, 9, kNaN<T>});
  CHECK(At<int64_t>(Eval([&](const Scope& s) { return ops::ArgMax(s, ops::Const(s, v), 0); }),
                    0) == 1);
}

TEMPLATE_TEST_CASE("Relu of NaN is NaN at any position of a long vector", "[nn][nan]", float,
                   double) {
  using T = TestType;
  const int64_t len = 1037;
  Tensor v(DataTypeToEnum<T>::value, TensorShape{len});
  for (int64_t i = 0; i < len; ++i) v.data<T>()[i] = i % 3 == 0 ? kNaN<T> : T(i % 5) - T(2);
  Tensor got = Eval([&](const Scope& s) { return ops::Relu(s, ops::Const(s, v)); });
  CheckElements<T>(got, [](int64_t i) { return i % 3 == 0; },
                   [&](int64_t i) { return std::max(At<T>(v, i), T(0)); });
}

// The gradient of `y = f(x...)` with respect to each x, for an all-ones upstream gradient.
std::vector<Tensor> Gradients(const std::vector<Tensor>& xs,
                              const std::function<Output(const Scope&, std::vector<Output>)>& f) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> in;
  std::vector<NodeOut> wrt;
  for (const Tensor& x : xs) {
    in.push_back(ops::Const(root, x));
    wrt.push_back(in.back());
  }
  Output y = f(root, in);
  std::vector<NodeOut> grads;
  Status st = AddSymbolicGradients(root.graph(), {y}, wrt, {}, &grads);
  INFO(st.ToString());
  REQUIRE(st.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<std::string> fetches;
  for (const NodeOut& g : grads) fetches.push_back(g.name());
  return test::RunOk(session.get(), {}, fetches);
}

TEST_CASE("Maximum and Minimum gradients go to the NaN operand, ties to x", "[math][grad][nan]") {
  const double nan = kNaN<double>;
  Tensor x = Tensor::FromVector<double>({1, nan, 3, nan, 2});
  Tensor y = Tensor::FromVector<double>({nan, 2, 1, nan, 2});
  for (BinaryFn op : {BinaryFn(ops::Maximum), BinaryFn(ops::Minimum)}) {
    auto g = Gradients({x, y}, [&](const Scope& s, std::vector<Output> in) {
      return op(s, in[0], in[1]);
    });
    const bool is_max = op == BinaryFn(ops::Maximum);
    CHECK(test::Values<double>(g[0]) ==
          std::vector<double>{0, 1, is_max ? 1.0 : 0.0, 1, 1});
    CHECK(test::Values<double>(g[1]) ==
          std::vector<double>{1, 0, is_max ? 0.0 : 1.0, 0, 0});
  }
}

TEST_CASE("Max and Min reduction gradients go to the NaN positions of each slice",
          "[math][grad][nan]") {
  const double nan = kNaN<double>;
  // Row 0: one NaN; row 1: two NaNs share; row 2: no NaN, tied maxima share.
  Tensor x = Tensor::FromVector<double>({1, nan, 3, 0, nan, 5, nan, 2, 4, 4, -1, 4}, {3, 4});
  auto g = Gradients({x}, [](const Scope& s, std::vector<Output> in) {
    return ops::Max(s, in[0], std::vector<int>{1});
  });
  CHECK(test::Values<double>(g[0]) ==
        std::vector<double>{0, 1, 0, 0, 0.5, 0, 0.5, 0, 1.0 / 3, 1.0 / 3, 0, 1.0 / 3});
  g = Gradients({x}, [](const Scope& s, std::vector<Output> in) {
    return ops::Min(s, in[0], std::vector<int>{0});
  });
  // Columns: {1, nan, 4}: the NaN in row 1; {nan, 5, 4}: row 0; {3, nan, -1}: row 1;
  // {0, 2, 4}: the minimum 0 in row 0.
  CHECK(test::Values<double>(g[0]) ==
        std::vector<double>{0, 1, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0});
}

// MaxPool 2x2 stride 1 VALID over [9, 3, 3, depth]: image p has a NaN at spatial position p in
// channel p % depth. Reference output and gradient (first NaN of a window, else its first max).
template <typename T>
void CheckMaxPoolNaN(int64_t depth) {
  INFO("depth " << depth);
  Tensor x(DataTypeToEnum<T>::value, TensorShape{9, 3, 3, depth});
  T* p = x.data<T>();
  for (int64_t i = 0; i < x.NumElements(); ++i) p[i] = static_cast<T>((i * 37) % 101) - T(50);
  for (int64_t img = 0; img < 9; ++img) p[(img * 9 + img) * depth + img % depth] = kNaN<T>;
  std::vector<T> want_y(9 * 4 * depth);
  std::vector<T> want_dx(x.NumElements(), T(0));
  for (int64_t img = 0; img < 9; ++img)
    for (int64_t oh = 0; oh < 2; ++oh)
      for (int64_t ow = 0; ow < 2; ++ow)
        for (int64_t c = 0; c < depth; ++c) {
          int64_t arg = -1;
          for (int64_t h = oh; h < oh + 2; ++h)
            for (int64_t w = ow; w < ow + 2; ++w) {
              int64_t i = ((img * 3 + h) * 3 + w) * depth + c;
              if (arg < 0 || p[i] > p[arg] || (std::isnan(p[i]) && !std::isnan(p[arg]))) arg = i;
            }
          want_y[((img * 2 + oh) * 2 + ow) * depth + c] = p[arg];
          want_dx[arg] += T(1);
        }
  Tensor y = Eval([&](const Scope& s) {
    return ops::MaxPool(s, ops::Const(s, x), {2, 2}, {1, 1}, "VALID");
  });
  CheckElements<T>(y, [&](int64_t i) { return std::isnan(want_y[i]); },
                   [&](int64_t i) { return want_y[i]; });
  auto g = Gradients({x}, [](const Scope& s, std::vector<Output> in) {
    return ops::MaxPool(s, in[0], {2, 2}, {1, 1}, "VALID");
  });
  CHECK(test::Values<T>(g[0]) == want_dx);
}

TEMPLATE_TEST_CASE("MaxPool returns NaN for a NaN in its window, its gradient goes there",
                   "[nn][nn-pool][nan]", float, double) {
  for (int64_t depth : {1, 3, 8, 17}) CheckMaxPoolNaN<TestType>(depth);
}

TEST_CASE("ReluGrad gives no gradient to a NaN feature, as TensorFlow", "[nn][grad][nan]") {
  Tensor x = Tensor::FromVector<double>({-1, kNaN<double>, 2});
  auto g = Gradients({x}, [](const Scope& s, std::vector<Output> in) {
    return ops::Relu(s, in[0]);
  });
  CHECK(test::Values<double>(g[0]) == std::vector<double>{0, 0, 1});
}

}  // namespace
}  // namespace fb
