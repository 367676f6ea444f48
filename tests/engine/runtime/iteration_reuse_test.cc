// Reuse of the executor's per-iteration state (ExecutorImpl::NewIteration/RecycleIteration,
// issue 16): a recycled IterationState starts like a new one, and loops that reuse them across
// iterations, frames, steps and failed steps compute what they computed before.
#include <catch2/catch.hpp>

#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/executor_impl.h"
#include "engine/runtime/executor_state.h"
#include "tests/engine/control_flow/control_flow_test_util.h"

namespace fb {
namespace {

Output Int(const Scope& s, int v) { return ops::Const(s, static_cast<int32_t>(v)); }

TEST_CASE("A recycled iteration starts empty with the initial pending counts",
          "[executor][while]") {
  Scope root = Scope::NewRootScope();
  Output a = ops::Placeholder(root.WithOpName("a"), DataType::kInt32);
  ops::Add(root.WithOpName("sum"), a, Int(root, 1));
  REQUIRE(root.ok());
  DeviceOptions o;
  o.threads_per_cpu = 1;
  auto mgr = DeviceMgr::CreateLocal(o);
  REQUIRE(mgr.ok());
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  ExecutorImpl impl(std::move(*g), (*mgr)->devices()[0]);
  REQUIRE(impl.Initialize().ok());
  REQUIRE(impl.total_inputs() == 2);
  std::unique_ptr<IterationState> it = impl.NewIteration();
  IterationState* first = it.get();
  // Dirty it as a step would, leaving a value in a slot whose node never ran (an aborted step).
  it->inputs[1].val = Tensor::Scalar<int32_t>(7);
  it->inputs[1].has_value = true;
  it->filled.push_back(1);
  for (int& p : it->pending) p = -3;
  for (int& d : it->dead_count) d = 2;
  it->outstanding_ops = 5;
  it->outstanding_frame_count = 1;
  impl.RecycleIteration(std::move(it));
  it = impl.NewIteration();
  CHECK(it.get() == first);  // reused, not reallocated
  CHECK_FALSE(it->inputs[1].has_value);
  CHECK_FALSE(it->inputs[1].val.IsInitialized());
  CHECK(it->filled.empty());
  CHECK(it->pending == impl.initial_pending());
  for (int d : it->dead_count) CHECK(d == 0);
  CHECK(it->outstanding_ops == 0);
  CHECK(it->outstanding_frame_count == 0);
  // The pool keeps a bounded number.
  std::vector<std::unique_ptr<IterationState>> many;
  for (size_t i = 0; i < ExecutorImpl::kMaxPooledIterations + 5; ++i)
    many.push_back(impl.NewIteration());
  for (auto& m : many) impl.RecycleIteration(std::move(m));
}

// sum over i < n of (i odd ? 3 i : i / 2), with a Cond (dead branches) in the body.
Output OddEvenLoop(const Scope& root, Output n, int parallel_iterations) {
  ops::WhileOptions opts;
  opts.parallel_iterations = parallel_iterations;
  auto out = ops::WhileLoop(
      root, {Int(root, 0), Int(root, 0)},
      [&](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], n); },
      [](const Scope& s, const std::vector<Output>& v) {
        auto odd = ops::Equal(s, ops::Sub(s, v[0], ops::Mul(s, ops::Div(s, v[0], Int(s, 2)),
                                                              Int(s, 2))),
                              Int(s, 1));
        auto term = ops::Cond(
            s, odd,
            [&](const Scope& b) { return std::vector<Output>{ops::Mul(b, v[0], Int(b, 3))}; },
            [&](const Scope& b) { return std::vector<Output>{ops::Div(b, v[0], Int(b, 2))}; });
        return std::vector<Output>{ops::Add(s, v[0], Int(s, 1)), ops::Add(s, v[1], term[0])};
      },
      opts);
  return out[1];
}

int64_t OddEvenSum(int n) {
  int64_t sum = 0;
  for (int i = 0; i < n; ++i) sum += i % 2 == 1 ? 3 * i : i / 2;
  return sum;
}

TEST_CASE("A deep while loop completes, step after step, with reused iterations",
          "[executor][while]") {
  for (int parallel : {1, 10}) {
    Scope root = Scope::NewRootScope();
    auto n = ops::Placeholder(root.WithOpName("n"), DataType::kInt32);
    Output sum = OddEvenLoop(root, n, parallel);
    auto session = test::SessionFor(root);
    for (int k : {2000, 0, 1, 257, 2000}) {
      auto r = test::RunOk(session.get(), {{"n:0", Tensor::Scalar<int32_t>(k)}}, {sum.name()});
      CHECK(r[0].scalar<int32_t>() == OddEvenSum(k));
    }
  }
}

TEST_CASE("Nested loops reuse iterations across inner frames", "[executor][while]") {
  // sum over i < 40 of sum over j < i of j, the inner loop a new frame per outer iteration.
  Scope root = Scope::NewRootScope();
  auto out = ops::WhileLoop(
      root, {Int(root, 0), Int(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], Int(s, 40)); },
      [](const Scope& s, const std::vector<Output>& v) {
        auto inner = ops::WhileLoop(
            s, {Int(s, 0), Int(s, 0)},
            [&](const Scope& c, const std::vector<Output>& w) { return ops::Less(c, w[0], v[0]); },
            [](const Scope& b, const std::vector<Output>& w) {
              return std::vector<Output>{ops::Add(b, w[0], Int(b, 1)), ops::Add(b, w[1], w[0])};
            });
        return std::vector<Output>{ops::Add(s, v[0], Int(s, 1)), ops::Add(s, v[1], inner[1])};
      });
  auto session = test::SessionFor(root);
  int64_t want = 0;
  for (int i = 0; i < 40; ++i) want += static_cast<int64_t>(i) * (i - 1) / 2;
  for (int step = 0; step < 3; ++step) {
    auto r = test::RunOk(session.get(), {}, {out[1].name()});
    CHECK(r[0].scalar<int32_t>() == want);
  }
}

TEST_CASE("An error inside a loop body surfaces, and the next step runs clean",
          "[executor][while]") {
  // Iteration i divides by (i - bad): integer division by zero when the loop reaches `bad`.
  Scope root = Scope::NewRootScope();
  auto bad = ops::Placeholder(root.WithOpName("bad"), DataType::kInt32);
  auto out = ops::WhileLoop(
      root, {Int(root, 0), Int(root, 0)},
      [](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], Int(s, 200)); },
      [&](const Scope& s, const std::vector<Output>& v) {
        auto q = ops::Div(s.WithOpName("divide"), Int(s, 1000), ops::Sub(s, v[0], bad));
        return std::vector<Output>{ops::Add(s, v[0], Int(s, 1)), ops::Add(s, v[1], q)};
      });
  auto session = test::SessionFor(root);
  auto run = [&](int b) {
    std::vector<Tensor> r;
    Status s = session->Run({{"bad:0", Tensor::Scalar<int32_t>(b)}}, {out[1].name()}, {}, &r);
    return std::make_pair(s, r);
  };
  int64_t want = 0;
  for (int i = 0; i < 200; ++i) want += 1000 / (i + 1000);
  for (int round = 0; round < 3; ++round) {
    auto [s, r] = run(150);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains("integer division by zero"));
    CHECK_THAT(s.message(), Catch::Contains("divide"));
    auto [ok, good] = run(-1000);
    REQUIRE(ok.ok());
    CHECK(good[0].scalar<int32_t>() == want);
  }
}

}  // namespace
}  // namespace fb
