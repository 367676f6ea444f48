// Executor overhead (whitepaper 3.1): ns per node for a 10,000-node chain and a 10,000-node wide
// graph of trivial ops (Identity on a scalar), run through Session::Run on one CPU device.
// Target: at most 1 us per node on the chain. BM_SessionRunNullStep: the fixed cost of one
// Session::Run of the null step's graph (acc += 0.5 * params, scalars), in us per step.
#include <benchmark/benchmark.h>

#include "benchmarks/bench_util.h"
#include "engine/client/math_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"

namespace fb {
namespace {

using bench::MakeSession;

void BM_ExecutorChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, 1.0f);
  for (int i = 0; i < n; ++i) x = ops::Identity(root, x);
  auto session = MakeSession(root, 2);
  std::vector<Tensor> out;
  FB_CHECK(session->Run({}, {x.name()}, {}, &out).ok());
  for (auto _ : state) {
    Status st = session->Run({}, {x.name()}, {}, &out);
    benchmark::DoNotOptimize(st);
  }
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ExecutorChain)->Arg(10000)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_ExecutorWide(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, 1.0f);
  std::vector<Output> leaves;
  for (int i = 0; i < n; ++i) leaves.push_back(ops::Identity(root, x));
  Node* sink = ops::AddOp(root.WithControlDependencies(leaves), "NoOp", {});
  FB_CHECK(root.ok()) << root.status();
  auto session = MakeSession(root, 2);
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status st = session->Run({}, {}, {sink->name()}, &out);
    benchmark::DoNotOptimize(st);
  }
  state.counters["ns_per_node"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations(),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ExecutorWide)->Arg(10000)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_SessionRunNullStep(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  Output params = ops::Variable(root.WithOpName("params"), TensorShape{}, DataType::kFloat);
  Output acc = ops::Variable(root.WithOpName("acc"), TensorShape{}, DataType::kFloat);
  ops::Group(root.WithOpName("init"), {ops::Assign(root, params, ops::Const(root, 1.f)),
                                       ops::Assign(root, acc, ops::Const(root, 0.f))});
  ops::Group(root.WithOpName("step"),
             {ops::AssignAdd(root, acc, ops::Mul(root, params, ops::Const(root, 0.5f)))});
  auto session = MakeSession(root, 2);
  std::vector<Tensor> out;
  FB_CHECK(session->Run({}, {}, {"init"}, &out).ok());
  for (auto _ : state) {
    Status st = session->Run({}, {}, {"step"}, &out);
    benchmark::DoNotOptimize(st);
  }
}
BENCHMARK(BM_SessionRunNullStep)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace fb
