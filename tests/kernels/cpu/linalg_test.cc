// MatrixInverse and MatrixDeterminant against hand-computed 2x2 and 3x3 results.
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::D;
using test::Eval;
using test::EvalError;
using test::F;

TEST_CASE("MatrixInverse of 2x2 matrices, batched and adjoint", "[math][linalg]") {
  // [[4,7],[2,6]]^-1 = [[0.6,-0.7],[-0.2,0.4]]; [[2,0],[0,4]]^-1 = diag(0.5, 0.25).
  Tensor x = D({4, 7, 2, 6, 2, 0, 0, 4}, {2, 2, 2});
  Tensor got = Eval([&](const Scope& s) { return ops::MatrixInverse(s, ops::Const(s, x)); });
  test::ExpectClose(got, D({0.6, -0.7, -0.2, 0.4, 0.5, 0, 0, 0.25}, {2, 2, 2}), 1e-14, 1e-14);
  got = Eval([&](const Scope& s) { return ops::MatrixInverse(s, ops::Const(s, x), true); });
  test::ExpectClose(got, D({0.6, -0.2, -0.7, 0.4, 0.5, 0, 0, 0.25}, {2, 2, 2}), 1e-14, 1e-14);
  got = Eval([](const Scope& s) { return ops::MatrixInverse(s, ops::Const(s, F({4}, {1, 1}))); });
  test::ExpectClose(got, F({0.25}, {1, 1}));
}

TEST_CASE("MatrixInverse of a singular matrix fails naming the node", "[math][linalg][errors]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::MatrixInverse(s.WithOpName("inv"), ops::Const(s, D({1, 0, 0, 1, 1, 2, 2, 4}, {2, 2, 2})));
  });
  CHECK_THAT(msg, Catch::Contains("MatrixInverse 'inv'") &&
                      Catch::Contains("matrix 1 of input [2,2,2] is not invertible (singular)"));
  msg = EvalError([](const Scope& s) {
    return ops::MatrixInverse(s.WithOpName("inv"), ops::Const(s, D({1, 2, 3, 4, 5, 6}, {2, 3})));
  });
  CHECK_THAT(msg, Catch::Contains("input must be square matrices [..., M, M], got shape [2,3]"));
}

TEST_CASE("MatrixDeterminant of 2x2 and 3x3 matrices", "[math][linalg]") {
  // det [[4,7],[2,6]] = 10; det [[1,2],[2,4]] = 0 (singular).
  Tensor got = Eval([](const Scope& s) {
    return ops::MatrixDeterminant(s, ops::Const(s, D({4, 7, 2, 6, 1, 2, 2, 4}, {2, 2, 2})));
  });
  test::ExpectClose(got, D({10, 0}, {2}), 1e-14, 1e-14);
  // det [[2,0,1],[1,3,2],[1,1,2]] = 2(6-2) - 0 + 1(1-3) = 6 (cofactors of the first row).
  got = Eval([](const Scope& s) {
    return ops::MatrixDeterminant(s, ops::Const(s, F({2, 0, 1, 1, 3, 2, 1, 1, 2}, {3, 3})));
  });
  test::ExpectClose(got, F({6}, {}));
  // A 0x0 matrix has determinant 1.
  got = Eval([](const Scope& s) {
    return ops::MatrixDeterminant(s, ops::Const(s, Tensor(DataType::kDouble, {3, 0, 0})));
  });
  test::ExpectClose(got, D({1, 1, 1}, {3}));
}

}  // namespace
}  // namespace fb
