// Gradients of MatMul, BatchMatMul, MatrixInverse and MatrixDeterminant: float64
// central-difference checks for every transpose / adjoint combination.
#include "engine/client/math_ops.h"
#include "tests/gradient_checker.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::MaxGradientError;
using test::RandomDouble;
using Xs = std::vector<Output>;

constexpr double kTolerance = 1e-6;

// M=3, K=4, N=2, with optional batch dimensions in front.
TensorShape Operand(std::vector<int64_t> batch, int64_t rows, int64_t cols, bool transposed) {
  batch.push_back(transposed ? cols : rows);
  batch.push_back(transposed ? rows : cols);
  return TensorShape(batch);
}

TEST_CASE("MatMul and BatchMatMul gradients for all transpose combinations", "[math][grad]") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      INFO("transpose_a " << ta << " transpose_b " << tb);
      double err = MaxGradientError(
          [&](const Scope& s, const Xs& x) { return ops::MatMul(s, x[0], x[1], ta, tb); },
          {RandomDouble(Operand({}, 3, 4, ta), -1, 1, 1), RandomDouble(Operand({}, 4, 2, tb), -1, 1, 2)});
      CHECK(err < kTolerance);
      err = MaxGradientError(
          [&](const Scope& s, const Xs& x) { return ops::BatchMatMul(s, x[0], x[1], ta, tb); },
          {RandomDouble(Operand({2}, 3, 2, ta), -1, 1, 3), RandomDouble(Operand({2}, 2, 2, tb), -1, 1, 4)});
      CHECK(err < kTolerance);
    }
}

// Well-conditioned matrices: random entries in [-1, 1) plus 3 on the diagonal.
Tensor WellConditioned(const TensorShape& shape) {
  Tensor t = RandomDouble(shape, -1, 1, 5);
  const int64_t m = shape.dim_size(shape.rank() - 1);
  for (int64_t b = 0; b < t.NumElements() / (m * m); ++b)
    for (int64_t i = 0; i < m; ++i) t.data<double>()[b * m * m + i * m + i] += 3;
  return t;
}

TEST_CASE("MatrixInverse gradient, plain and adjoint", "[math][grad]") {
  for (bool adjoint : {false, true}) {
    INFO("adjoint " << adjoint);
    double err = MaxGradientError(
        [&](const Scope& s, const Xs& x) { return ops::MatrixInverse(s, x[0], adjoint); },
        {WellConditioned({2, 3, 3})});
    CHECK(err < kTolerance);
  }
}

TEST_CASE("MatrixDeterminant gradient (Jacobi's formula)", "[math][grad]") {
  double err = MaxGradientError(
      [](const Scope& s, const Xs& x) { return ops::MatrixDeterminant(s, x[0]); },
      {WellConditioned({2, 3, 3})});
  CHECK(err < kTolerance);
  err = MaxGradientError(
      [](const Scope& s, const Xs& x) { return ops::MatrixDeterminant(s, x[0]); },
      {WellConditioned({2, 2})});
  CHECK(err < kTolerance);
}

}  // namespace
}  // namespace fb
