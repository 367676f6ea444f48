// Select (TensorFlow 1 semantics: element-wise, row-wise and scalar conditions) and Where against
// hand-computed values, Select's gradient against central differences and hand-computed zeros,
// and the errors for mismatched shapes.
#include "engine/autodiff/gradients.h"
#include "engine/client/array_ops.h"
#include "tests/gradient_checker.h"
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
using Xs = std::vector<Output>;

Tensor SelectOf(const Tensor& c, const Tensor& t, const Tensor& e) {
  return Eval([&](const Scope& s) {
    return ops::Select(s, ops::Const(s, c), ops::Const(s, t), ops::Const(s, e));
  });
}

TEST_CASE("Select picks elements, rows or a whole tensor", "[array][select]") {
  Tensor t = F({1, 2, 3, 4, 5, 6}, {3, 2}), e = F({-1, -2, -3, -4, -5, -6}, {3, 2});
  ExpectEqual(SelectOf(B({true, false, false, true, true, false}, {3, 2}), t, e),
              F({1, -2, -3, 4, 5, -6}, {3, 2}));
  ExpectEqual(SelectOf(B({false, true, false}, {3}), t, e), F({-1, -2, 3, 4, -5, -6}, {3, 2}));
  ExpectEqual(SelectOf(B({true}, {}), t, e), t);
  ExpectEqual(SelectOf(B({false}, {}), t, e), e);
  ExpectEqual(SelectOf(B({true, false}, {2}), I({7, 8}, {2}), I({0, 0}, {2})), I({7, 0}, {2}));
  ExpectEqual(SelectOf(B({false, true}, {2}), B({true, true}, {2}), B({false, false}, {2})),
              B({false, true}, {2}));
  ExpectEqual(SelectOf(B({}, {0}), L({}, {0, 2}), L({}, {0, 2})), L({}, {0, 2}));
}

TEST_CASE("Select with mismatched shapes fails naming the node", "[array][select]") {
  std::string msg = EvalError([](const Scope& s) {
    return ops::Select(s.WithOpName("sel"), ops::Const(s, B({true, false}, {2})),
                       ops::Const(s, F({1, 2}, {2})), ops::Const(s, F({1, 2, 3}, {3})));
  });
  CHECK_THAT(msg, Catch::Contains("'sel'") &&
                      Catch::Contains("t and e must have the same shape, got [2] and [3]"));
  msg = EvalError([](const Scope& s) {
    return ops::Select(s.WithOpName("rows"), ops::Const(s, B({true, false}, {2})),
                       ops::Const(s, F({1, 2, 3, 4, 5, 6}, {3, 2})),
                       ops::Const(s, F({1, 2, 3, 4, 5, 6}, {3, 2})));
  });
  CHECK_THAT(msg, Catch::Contains("'rows'") && Catch::Contains("got shape [2]"));
  // Shapes known only at run time reach the kernel's check.
  Scope root = Scope::NewRootScope();
  auto c = ops::Placeholder(root.WithOpName("c"), DataType::kBool);
  auto sel = ops::Select(root.WithOpName("late"), c, ops::Const(root, F({1, 2}, {2})),
                         ops::Const(root, F({3, 4}, {2})));
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  Status st = session->Run({{"c:0", B({true, false, true}, {3})}}, {sel.name()}, {}, &out);
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("'late'") && Catch::Contains("got shape [3]"));
}

TEST_CASE("Where lists the coordinates of true and non-zero elements", "[array][select]") {
  ExpectEqual(
      Eval([](const Scope& s) {
        return ops::Where(s, ops::Const(s, B({true, false, false, true, true, false}, {2, 3})));
      }),
      L({0, 0, 1, 0, 1, 1}, {3, 2}));
  ExpectEqual(Eval([](const Scope& s) {
                return ops::Where(s, ops::Const(s, F({0, 2.5f, 0, -1}, {4})));
              }),
              L({1, 3}, {2, 1}));
  ExpectEqual(Eval([](const Scope& s) {
                return ops::Where(s, ops::Const(s, I({0, 0}, {1, 2})));
              }),
              L({}, {0, 2}));
  ExpectEqual(Eval([](const Scope& s) { return ops::Where(s, ops::Const(s, B({true}, {}))); }),
              L({}, {1, 0}));
}

TEST_CASE("Select's gradient goes to the picked branch, zeros to the other", "[array][grad]") {
  Tensor cond = B({true, false, false, true, true, false}, {3, 2});
  auto elementwise = [&](const Scope& s, const Xs& x) {
    return ops::Select(s, ops::Const(s, cond), x[0], x[1]);
  };
  CHECK(test::MaxGradientError(elementwise, {test::RandomDouble({3, 2}, -1, 1, 1),
                                             test::RandomDouble({3, 2}, -1, 1, 2)}) < 1e-6);
  auto rows = [&](const Scope& s, const Xs& x) {
    return ops::Select(s, ops::Const(s, B({false, true, true}, {3})), x[0], x[1]);
  };
  CHECK(test::MaxGradientError(rows, {test::RandomDouble({3, 2}, -1, 1, 3),
                                      test::RandomDouble({3, 2}, -1, 1, 4)}) < 1e-6);
  Scope root = Scope::NewRootScope();
  auto t = ops::Const(root, D({1, 2, 3, 4, 5, 6}, {3, 2}));
  auto e = ops::Const(root, D({1, 2, 3, 4, 5, 6}, {3, 2}));
  auto y = ops::Select(root, ops::Const(root, cond), t, e);
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {t, e}, {}, &grads).ok());
  auto session = test::MakeSession(root.ToGraphDef());
  auto out = test::RunOk(session.get(), {}, {grads[0].name(), grads[1].name()});
  CHECK(test::Values<double>(out[0]) == std::vector<double>{1, 0, 0, 1, 1, 0});
  CHECK(test::Values<double>(out[1]) == std::vector<double>{0, 1, 1, 0, 0, 1});
}

TEST_CASE("Gradients flow through Select but not through its comparison", "[array][grad]") {
  // |x| as Select(x >= 0, x, -x); GreaterEqual has no gradient and must not stop autodiff.
  auto abs = [](const Scope& s, const Xs& x) {
    auto zero = ops::Const(s, Tensor::Scalar<double>(0));
    return ops::Select(s, ops::GreaterEqual(s, x[0], zero), x[0], ops::Neg(s, x[0]));
  };
  CHECK(test::MaxGradientError(abs, {D({-2, -0.5, 0.25, 3}, {2, 2})}) < 1e-6);
}

}  // namespace
}  // namespace fb
