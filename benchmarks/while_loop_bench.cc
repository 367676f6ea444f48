// While-loop overhead (whitepaper 4.4): time per iteration of a loop whose body is empty but for
// the counter increment (Enter/Merge/Switch/LoopCond/NextIteration/Exit plus Less and Add per
// iteration), run through Session::Run on one CPU device. Target: at most 5 us per iteration.
// BM_UnrolledChain runs the same number of Add nodes as a straight chain, for comparison in
// the same run.
#include <benchmark/benchmark.h>

#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"

namespace fb {
namespace {

std::unique_ptr<Session> MakeSession(const Scope& root, int threads) {
  FB_CHECK(root.ok()) << root.status();
  SessionOptions opts;
  opts.device_options.threads_per_cpu = threads;
  auto s = Session::Create(opts);
  FB_CHECK(s.ok()) << s.status();
  FB_CHECK((*s)->Extend(root.ToGraphDef()).ok());
  return std::move(*s);
}

void BM_WhileLoopEmptyBody(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int parallel_iterations = static_cast<int>(state.range(1));
  Scope root = Scope::NewRootScope();
  ops::WhileOptions opts;
  opts.parallel_iterations = parallel_iterations;
  auto out = ops::WhileLoop(
      root, {ops::Const(root, int32_t{0})},
      [n](const Scope& s, const std::vector<Output>& v) {
        return ops::Less(s, v[0], ops::Const(s, int32_t{n}));
      },
      [](const Scope& s, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(s, v[0], ops::Const(s, int32_t{1}))};
      },
      opts);
  auto session = MakeSession(root, 2);
  std::vector<Tensor> result;
  FB_CHECK(session->Run({}, {out[0].name()}, {}, &result).ok());
  FB_CHECK(result[0].scalar<int32_t>() == n);
  for (auto _ : state) {
    Status st = session->Run({}, {out[0].name()}, {}, &result);
    benchmark::DoNotOptimize(st);
  }
  state.counters["us_per_iteration"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations() / 1e6,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_WhileLoopEmptyBody)
    ->Args({10000, 1})
    ->Args({10000, 10})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

void BM_UnrolledChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, int32_t{0});
  Output one = ops::Const(root, int32_t{1});
  for (int i = 0; i < n; ++i) x = ops::Add(root, x, one);
  auto session = MakeSession(root, 2);
  std::vector<Tensor> result;
  for (auto _ : state) {
    Status st = session->Run({}, {x.name()}, {}, &result);
    benchmark::DoNotOptimize(st);
  }
  state.counters["us_per_iteration"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations() / 1e6,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_UnrolledChain)->Arg(10000)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fb
