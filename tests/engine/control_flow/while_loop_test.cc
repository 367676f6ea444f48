// WhileLoop and Cond builders running on the executor's frames (whitepaper 4.4): results against
// closed forms, nesting, loop invariants, the parallel_iterations bound, and builder errors.
#include <atomic>
#include <chrono>
#include <thread>

#include "engine/framework/op_kernel.h"
#include "tests/engine/control_flow/control_flow_test_util.h"

namespace fb {
namespace {

using test::RunOk;
using test::SessionFor;

Output Int(const Scope& s, int v) { return ops::Const(s, static_cast<int32_t>(v)); }

TEST_CASE("WhileLoop sums 0..n-1 and counts iterations", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DataType::kInt32);
  auto out = ops::WhileLoop(
      root, {Int(root, 0), Int(root, 0)},
      [&](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], n); },
      [&](const Scope& s, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(s, v[0], Int(s, 1)), ops::Add(s, v[1], v[0])};
      });
  REQUIRE(out.size() == 2);
  auto session = SessionFor(root);
  for (int k : {0, 1, 7, 100}) {
    auto r = RunOk(session.get(), {{"n:0", Tensor::Scalar<int32_t>(k)}},
                   {out[0].name(), out[1].name()});
    CHECK(r[0].scalar<int32_t>() == k);
    CHECK(r[1].scalar<int32_t>() == k * (k - 1) / 2);
  }
}

TEST_CASE("WhileLoop bodies use tensors from outside (loop invariants)", "[control_flow]") {
  // x_{k+1} = W x_k + b, three times, against the unrolled product.
  Scope root = Scope::NewRootScope();
  auto w = ops::Const(root, std::vector<float>{0.5f, 1.0f, -1.0f, 2.0f}, TensorShape{2, 2});
  auto b = ops::Const(root, std::vector<float>{1.0f, -1.0f}, TensorShape{2, 1});
  auto x0 = ops::Const(root, std::vector<float>{1.0f, 2.0f}, TensorShape{2, 1});
  auto out = ops::WhileLoop(
      root, {Int(root, 0), x0},
      [](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], Int(s, 3)); },
      [&](const Scope& s, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(s, v[0], Int(s, 1)),
                                   ops::Add(s, ops::MatMul(s, w, v[1]), b)};
      });
  Output unrolled = x0;
  for (int i = 0; i < 3; ++i) unrolled = ops::Add(root, ops::MatMul(root, w, unrolled), b);
  auto session = SessionFor(root);
  auto r = RunOk(session.get(), {}, {out[1].name(), unrolled.name()});
  test::ExpectClose(r[0], r[1]);
}

TEST_CASE("Nested WhileLoops run the inner loop once per outer iteration", "[control_flow]") {
  // total = sum_{i<3} sum_{j<i+2} (i * 10 + j), inner bound depending on the outer variable.
  Scope root = Scope::NewRootScope();
  auto out = ops::WhileLoop(
      root, {Int(root, 0), Int(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], Int(s, 3)); },
      [](const Scope& s, const std::vector<Output>& v) {
        Output i = v[0];
        auto inner = ops::WhileLoop(
            s, {Int(s, 0), v[1]},
            [&](const Scope& s2, const std::vector<Output>& u) {
              return ops::Less(s2, u[0], ops::Add(s2, i, Int(s2, 2)));
            },
            [&](const Scope& s2, const std::vector<Output>& u) {
              auto term = ops::Add(s2, ops::Mul(s2, i, Int(s2, 10)), u[0]);
              return std::vector<Output>{ops::Add(s2, u[0], Int(s2, 1)), ops::Add(s2, u[1], term)};
            });
        return std::vector<Output>{ops::Add(s, i, Int(s, 1)), inner[1]};
      });
  int expected = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < i + 2; ++j) expected += i * 10 + j;
  auto session = SessionFor(root);
  auto r = RunOk(session.get(), {}, {out[1].name()});
  CHECK(r[0].scalar<int32_t>() == expected);
}

TEST_CASE("Cond runs one branch, branches use outside tensors and constants", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
  auto y = ops::Const(root, 10.0f);
  auto out = ops::Cond(
      root, ops::Greater(root, x, ops::Const(root, 0.0f)),
      [&](const Scope& s) { return std::vector<Output>{ops::Mul(s, x, y)}; },
      [&](const Scope& s) {
        return std::vector<Output>{ops::Sub(s, ops::Const(s, 1.0f), x)};
      });
  REQUIRE(out.size() == 1);
  auto session = SessionFor(root);
  CHECK(RunOk(session.get(), {{"x:0", Tensor::Scalar(2.0f)}}, {out[0].name()})[0].scalar<float>() ==
        20.0f);
  CHECK(RunOk(session.get(), {{"x:0", Tensor::Scalar(-2.0f)}}, {out[0].name()})[0].scalar<float>() ==
        3.0f);
}

TEST_CASE("Cond inside a WhileLoop body (Collatz steps)", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto n0 = ops::Placeholder(root.WithOpName("n"), DataType::kInt32);
  auto out = ops::WhileLoop(
      root, {n0, Int(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) { return ops::Greater(s, v[0], Int(s, 1)); },
      [](const Scope& s, const std::vector<Output>& v) {
        auto half = ops::Div(s, v[0], Int(s, 2));
        auto even = ops::Equal(s, ops::Mul(s, half, Int(s, 2)), v[0]);
        auto next = ops::Cond(
            s, even, [&](const Scope& b) { return std::vector<Output>{half}; },
            [&](const Scope& b) {
              return std::vector<Output>{ops::Add(b, ops::Mul(b, v[0], Int(b, 3)), Int(b, 1))};
            });
        return std::vector<Output>{next[0], ops::Add(s, v[1], Int(s, 1))};
      });
  auto session = SessionFor(root);
  auto steps = [](int n) {
    int k = 0;
    for (; n > 1; ++k) n = n % 2 == 0 ? n / 2 : 3 * n + 1;
    return k;
  };
  for (int n : {1, 6, 27}) {
    auto r = RunOk(session.get(), {{"n:0", Tensor::Scalar<int32_t>(n)}}, {out[1].name()});
    CHECK(r[0].scalar<int32_t>() == steps(n));
  }
}

TEST_CASE("WhileLoop inside a Cond branch runs only when taken", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), DataType::kBool);
  auto out = ops::Cond(
      root, p,
      [](const Scope& s) {
        return ops::WhileLoop(
            s, {Int(s, 1)},
            [](const Scope& s2, const std::vector<Output>& v) {
              return ops::Less(s2, v[0], Int(s2, 100));
            },
            [](const Scope& s2, const std::vector<Output>& v) {
              return std::vector<Output>{ops::Mul(s2, v[0], Int(s2, 3))};
            });
      },
      [](const Scope& s) { return std::vector<Output>{Int(s, -1)}; });
  auto session = SessionFor(root);
  CHECK(RunOk(session.get(), {{"p:0", Tensor::Scalar(true)}}, {out[0].name()})[0]
            .scalar<int32_t>() == 243);
  CHECK(RunOk(session.get(), {{"p:0", Tensor::Scalar(false)}}, {out[0].name()})[0]
            .scalar<int32_t>() == -1);
}

// A test-only kernel that sleeps and records how many of its instances overlap.
std::atomic<int> g_active{0}, g_max_active{0};
REGISTER_OP("TestSleepOverlap").Input("x: int32").Output("y: int32").SetIsStateful();
class TestSleepOverlapOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    int now = ++g_active;
    for (int prev = g_max_active; now > prev && !g_max_active.compare_exchange_weak(prev, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
    --g_active;
    ctx->forward_input(0, 0);
  }
};
REGISTER_KERNEL(KernelDefBuilder("TestSleepOverlap").Device(DEVICE_CPU), TestSleepOverlapOp);

int MaxOverlap(int parallel_iterations) {
  Scope root = Scope::NewRootScope();
  ops::WhileOptions opts;
  opts.parallel_iterations = parallel_iterations;
  auto out = ops::WhileLoop(
      root, {Int(root, 0), Int(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], Int(s, 8)); },
      [](const Scope& s, const std::vector<Output>& v) {
        // The counter does not wait for the sleep: iterations overlap up to the bound.
        auto slept = ops::Op(s, "TestSleepOverlap", {v[0]});
        return std::vector<Output>{ops::Add(s, v[0], Int(s, 1)), ops::Add(s, v[1], slept)};
      },
      opts);
  auto session = SessionFor(root, 1, 6);
  g_max_active = 0;
  auto r = RunOk(session.get(), {}, {out[1].name()});
  CHECK(r[0].scalar<int32_t>() == 28);
  return g_max_active;
}

TEST_CASE("Iterations run concurrently up to parallel_iterations", "[control_flow]") {
  CHECK(MaxOverlap(1) == 1);
  int four = MaxOverlap(4);
  CHECK(four > 1);
  CHECK(four <= 4);
}

TEST_CASE("Builders report bad results naming the loop", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  ops::WhileLoop(
      root, {Int(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], Int(s, 3)); },
      [](const Scope& s, const std::vector<Output>&) {
        return std::vector<Output>{ops::Const(s, 1.0f)};
      });
  REQUIRE_FALSE(root.ok());
  CHECK_THAT(root.status().message(),
             Catch::Contains("WhileLoop 'while' body") && Catch::Contains("expected int32"));
  Scope r2 = Scope::NewRootScope();
  ops::WhileLoop(
      r2, {Int(r2, 0)}, [](const Scope& s, const std::vector<Output>& v) { return v[0]; },
      [](const Scope&, const std::vector<Output>& v) { return v; });
  REQUIRE_FALSE(r2.ok());
  CHECK_THAT(r2.status().message(), Catch::Contains("cond must return a bool"));
  Scope r3 = Scope::NewRootScope();
  ops::Cond(
      r3, ops::Const(r3, true), [](const Scope& s) { return std::vector<Output>{Int(s, 1)}; },
      [](const Scope&) { return std::vector<Output>{}; });
  REQUIRE_FALSE(r3.ok());
  CHECK_THAT(r3.status().message(), Catch::Contains("else branch: returned 0 tensors"));
}

}  // namespace
}  // namespace fb
