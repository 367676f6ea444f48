// ZerosLike, OnesLike, Fill and the gradient shape helpers BroadcastGradientArgs and
// ReducedShape, against hand-computed values.
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

TEST_CASE("ZerosLike and OnesLike keep shape and type", "[math][fill]") {
  ExpectEqual(Eval([](const Scope& s) { return ops::ZerosLike(s, ops::Const(s, F({1, 2, 3, 4}, {2, 2}))); }),
              F({0, 0, 0, 0}, {2, 2}));
  ExpectEqual(Eval([](const Scope& s) { return ops::OnesLike(s, ops::Const(s, L({7, 8, 9}, {3}))); }),
              L({1, 1, 1}, {3}));
  ExpectEqual(Eval([](const Scope& s) { return ops::OnesLike(s, ops::Const(s, B({false}, {}))); }),
              B({true}, {}));
}

TEST_CASE("Fill builds a tensor of the given dims", "[math][fill]") {
  ExpectEqual(Eval([](const Scope& s) {
                return ops::Fill(s, ops::Const(s, I({2, 3}, {2})), ops::Const(s, 1.5));
              }),
              D({1.5, 1.5, 1.5, 1.5, 1.5, 1.5}, {2, 3}));
  ExpectEqual(Eval([](const Scope& s) {
                return ops::Fill(s, ops::Const(s, L({0, 4}, {2})), ops::Const(s, int32_t{3}));
              }),
              I({}, {0, 4}));
  std::string msg = EvalError([](const Scope& s) {
    return ops::Fill(s.WithOpName("f"), ops::Const(s, I({2, -1}, {2})), ops::Const(s, 1.f));
  });
  CHECK_THAT(msg, Catch::Contains("Fill 'f'") && Catch::Contains("dims: negative dimension -1"));
  msg = EvalError([](const Scope& s) {
    return ops::Fill(s.WithOpName("f"), ops::Const(s, I({2}, {1})), ops::Const(s, F({1, 2}, {2})));
  });
  CHECK_THAT(msg, Catch::Contains("value must be a scalar, got shape [2]"));
}

// Both outputs of BroadcastGradientArgs for shapes s0 and s1.
std::pair<Tensor, Tensor> GradientArgs(const Tensor& s0, const Tensor& s1) {
  Scope root = Scope::NewRootScope();
  Node* n = ops::AddOp(root.WithOpName("bga"), "BroadcastGradientArgs",
                       {ops::Const(root, s0), ops::Const(root, s1)});
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  auto out = test::RunOk(session.get(), {}, {Output(n, 0).name(), Output(n, 1).name()});
  return {out[0], out[1]};
}

TEST_CASE("BroadcastGradientArgs returns each side's repeated axes", "[math][fill]") {
  auto [r0, r1] = GradientArgs(I({2, 3, 4}, {3}), I({3, 1}, {2}));
  ExpectEqual(r0, I({}, {0}));
  ExpectEqual(r1, I({0, 2}, {2}));
  std::tie(r0, r1) = GradientArgs(L({1, 4}, {2}), L({5, 1}, {2}));
  ExpectEqual(r0, L({0}, {1}));
  ExpectEqual(r1, L({1}, {1}));
  std::tie(r0, r1) = GradientArgs(I({}, {0}), I({2, 2}, {2}));
  ExpectEqual(r0, I({0, 1}, {2}));
  ExpectEqual(r1, I({}, {0}));
}

TEST_CASE("BroadcastGradientArgs rejects shapes that do not broadcast", "[math][fill][errors]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::Op(s.WithOpName("bga"), "BroadcastGradientArgs",
                   {ops::Const(s, I({2, 3}, {2})), ops::Const(s, I({4}, {1}))});
  });
  CHECK_THAT(msg, Catch::Contains("BroadcastGradientArgs 'bga'") &&
                      Catch::Contains("incompatible shapes [2,3] and [4]"));
}

TEST_CASE("ReducedShape sets the reduced axes to 1", "[math][fill]") {
  auto reduced = [](const Tensor& shape, const Tensor& axes) {
    return Eval([&](const Scope& s) {
      return ops::Op(s, "ReducedShape", {ops::Const(s, shape), ops::Const(s, axes)});
    });
  };
  ExpectEqual(reduced(I({2, 3, 5}, {3}), I({0, -1}, {2})), I({1, 3, 1}, {3}));
  ExpectEqual(reduced(I({2, 3}, {2}), L({1}, {})), I({2, 1}, {2}));
  ExpectEqual(reduced(I({2, 3}, {2}), I({}, {0})), I({2, 3}, {2}));
  std::string msg = EvalError([&](const Scope& s) {
    return ops::Op(s.WithOpName("rs"), "ReducedShape",
                   {ops::Const(s, I({2, 3}, {2})), ops::Const(s, I({2}, {1}))});
  });
  CHECK_THAT(msg, Catch::Contains("reduction index 2 is out of range for input of rank 2"));
}

}  // namespace
}  // namespace fb
