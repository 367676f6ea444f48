// Gradients through Cond and WhileLoop (whitepaper 4.1 + 4.4): float64 central differences
// (tests/gradient_checker.h) and the symbolic gradients of the same computation unrolled.
#include "engine/autodiff/gradients.h"
#include "engine/client/nn_ops.h"
#include "tests/engine/control_flow/control_flow_test_util.h"
#include "tests/gradient_checker.h"

namespace fb {
namespace {

using test::MaxGradientError;
using test::RandomDouble;

Output Int(const Scope& s, int v) { return ops::Const(s, static_cast<int32_t>(v)); }

// x_{k+1} = tanh(W x_k) + 0.5 x_k, n times (W [2,2] invariant, x [2,1] loop variable).
Output Step(const Scope& s, Output w, Output x) {
  return ops::Add(s, ops::Tanh(s, ops::MatMul(s, w, x)), ops::Mul(s, x, ops::Const(s, 0.5)));
}

Output Recurrence(const Scope& s, Output w, Output x0, int n, int parallel_iterations = 10) {
  ops::WhileOptions opts;
  opts.parallel_iterations = parallel_iterations;
  return ops::WhileLoop(
      s, {Int(s, 0), x0},
      [n](const Scope& c, const std::vector<Output>& v) { return ops::Less(c, v[0], Int(c, n)); },
      [w](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(b, v[0], Int(b, 1)), Step(b, w, v[1])};
      },
      opts)[1];
}

TEST_CASE("Gradient through Cond matches central differences", "[control_flow][gradient]") {
  auto f = [](const Scope& s, const std::vector<Output>& x) {
    auto pred = ops::Greater(s, ops::Sum(s, x[0], std::vector<int>{0}), ops::Const(s, 0.0));
    return ops::Cond(
        s, pred, [&](const Scope& b) { return std::vector<Output>{ops::Mul(b, x[0], x[1])}; },
        [&](const Scope& b) {
          return std::vector<Output>{ops::Add(b, x[0], ops::Square(b, x[1]))};
        })[0];
  };
  Tensor a = RandomDouble({3}, 0.5, 1.5, 1), b = RandomDouble({3}, -1, 1, 2);
  CHECK(MaxGradientError(f, {a, b}) < 1e-6);  // then branch
  Tensor neg = RandomDouble({3}, -1.5, -0.5, 3);
  CHECK(MaxGradientError(f, {neg, b}) < 1e-6);  // else branch
}

TEST_CASE("Gradient through WhileLoop matches central differences", "[control_flow][gradient]") {
  auto f = [](const Scope& s, const std::vector<Output>& x) { return Recurrence(s, x[0], x[1], 4); };
  CHECK(MaxGradientError(f, {RandomDouble({2, 2}, -1, 1, 4), RandomDouble({2, 1}, -1, 1, 5)}) <
        1e-6);
  // One iteration at a time (no overlap between iterations) gives the same gradients.
  auto serial = [](const Scope& s, const std::vector<Output>& x) {
    return Recurrence(s, x[0], x[1], 3, 1);
  };
  CHECK(MaxGradientError(serial, {RandomDouble({2, 2}, -1, 1, 6), RandomDouble({2, 1}, -1, 1, 7)}) <
        1e-6);
}

TEST_CASE("WhileLoop gradients equal the unrolled graph's gradients", "[control_flow][gradient]") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
  auto x0 = ops::Placeholder(root.WithOpName("x0"), DataType::kDouble);
  Output looped = ops::Sum(root, Recurrence(root, w, x0, 5), std::vector<int>{0, 1});
  Output unrolled = x0;
  for (int i = 0; i < 5; ++i) unrolled = Step(root, w, unrolled);
  unrolled = ops::Sum(root, unrolled, std::vector<int>{0, 1});
  std::vector<NodeOut> g_loop, g_unrolled;
  REQUIRE(AddSymbolicGradients(root.graph(), {looped}, {w, x0}, {}, &g_loop).ok());
  REQUIRE(AddSymbolicGradients(root.graph(), {unrolled}, {w, x0}, {}, &g_unrolled).ok());
  auto session = test::SessionFor(root);
  auto out = test::RunOk(session.get(),
                         {{"w:0", RandomDouble({2, 2}, -1, 1, 8)}, {"x0:0", RandomDouble({2, 1}, -1, 1, 9)}},
                         {looped.name(), unrolled.name(), g_loop[0].name(), g_unrolled[0].name(),
                          g_loop[1].name(), g_unrolled[1].name()});
  test::ExpectClose(out[0], out[1], 1e-12, 1e-12);
  test::ExpectClose(out[2], out[3], 1e-10, 1e-12);
  test::ExpectClose(out[4], out[5], 1e-10, 1e-12);
}

TEST_CASE("Gradient through nested WhileLoops", "[control_flow][gradient]") {
  // Outer 2 iterations, each running an inner loop of 3 steps of the recurrence.
  auto f = [](const Scope& s, const std::vector<Output>& x) {
    Output w = x[0];
    return ops::WhileLoop(
        s, {Int(s, 0), x[1]},
        [](const Scope& c, const std::vector<Output>& v) { return ops::Less(c, v[0], Int(c, 2)); },
        [w](const Scope& b, const std::vector<Output>& v) {
          Output inner = Recurrence(b, w, ops::Mul(b, v[1], v[1]), 3);
          return std::vector<Output>{ops::Add(b, v[0], Int(b, 1)), inner};
        })[1];
  };
  CHECK(MaxGradientError(f, {RandomDouble({2, 2}, -1, 1, 10), RandomDouble({2, 1}, -1, 1, 11)}) <
        1e-6);
}

TEST_CASE("Gradient through a Cond inside a WhileLoop", "[control_flow][gradient]") {
  // Each iteration multiplies by x[1] when the running value is positive, else squares it.
  auto f = [](const Scope& s, const std::vector<Output>& x) {
    Output a = x[1];
    return ops::WhileLoop(
        s, {Int(s, 0), x[0]},
        [](const Scope& c, const std::vector<Output>& v) { return ops::Less(c, v[0], Int(c, 4)); },
        [a](const Scope& b, const std::vector<Output>& v) {
          auto pos = ops::Greater(b, ops::Sum(b, v[1], std::vector<int>{0}), ops::Const(b, 0.0));
          auto next = ops::Cond(
              b, pos, [&](const Scope& t) { return std::vector<Output>{ops::Mul(t, v[1], a)}; },
              [&](const Scope& e) { return std::vector<Output>{ops::Square(e, v[1])}; });
          return std::vector<Output>{ops::Add(b, v[0], Int(b, 1)), next[0]};
        })[1];
  };
  CHECK(MaxGradientError(f, {RandomDouble({2}, -1.5, -0.5, 12), RandomDouble({2}, 0.5, 1.0, 13)}) <
        1e-6);
}

}  // namespace
}  // namespace fb
