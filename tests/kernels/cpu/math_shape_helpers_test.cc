// The stand-in Shape and Reshape of engine/ops/math_shape_helpers.cc (delete with that file once
// the array family provides them).
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::Eval;
using test::EvalError;
using test::ExpectEqual;
using test::F;
using test::I;

TEST_CASE("Shape and Reshape (stand-ins for the array family)", "[math][shape]") {
  ExpectEqual(Eval([](const Scope& s) {
                return ops::Op(s, "Shape", {ops::Const(s, Tensor(DataType::kFloat, {2, 0, 3}))});
              }),
              I({2, 0, 3}, {3}));
  ExpectEqual(Eval([](const Scope& s) {
                return ops::Op(s, "Reshape", {ops::Const(s, F({1, 2, 3, 4, 5, 6}, {2, 3})),
                                              ops::Const(s, I({3, -1}, {2}))});
              }),
              F({1, 2, 3, 4, 5, 6}, {3, 2}));
  std::string msg = EvalError([](const Scope& s) {
    return ops::Op(s.WithOpName("r"), "Reshape",
                   {ops::Const(s, F({1, 2, 3, 4, 5, 6}, {2, 3})), ops::Const(s, I({4, -1}, {2}))});
  });
  CHECK_THAT(msg, Catch::Contains("Reshape 'r'") &&
                      Catch::Contains("cannot reshape a tensor of shape [2,3] to [4,?]"));
}

}  // namespace
}  // namespace fb
