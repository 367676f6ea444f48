// Executor cost per node on a GPU device, in and out of while-loop frames (whitepaper 4.4): the
// word LSTM's WhileLoop step runs 3x its unrolled build on an H200 (docs/benchmarks.md, session
// 22), where on a CPU device an empty loop iteration costs 1.4 us (while_loop_bench.cc). Each
// benchmark runs one Session::Run of N iterations (or N chained nodes) on "gpu:1" and reports
// us per iteration:
//   BM_GpuLoopEmpty      the int32 counter only (Less, Add, and the frame ops; host memory)
//   BM_GpuLoopMul        plus one float Mul on the GPU per iteration (x [64, 512] * 1.0001)
//   BM_GpuLoopGather     plus Gather(table [N, 64, 512] on the GPU, t): the host counter as a
//                        GPU index, as the word LSTM reads its input x_t
//   BM_GpuLoopOneHot     plus OneHot(t, 32) as float on the GPU (the LSTM's output gathering)
//   BM_GpuChainMul       N float Muls in a chain, no loop (the unrolled build's per-node cost)
// The step ends with Device::Sync (the GPU's work done), as `flowbench benchmark` times it. The
// default graph passes are off: constant folding would fold the chain of Muls on constants into
// one value (0.02 us per "node" in the first run on an H200).
// Run: build/flowbench-gpubench --benchmark_filter=GpuLoop|GpuChain (scripts/gpu-check --run
// runs the loops).

#include <benchmark/benchmark.h>

#include "engine/client/array_ops.h"
#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/local_devices.h"
#include "engine/runtime/session.h"

namespace fb {
namespace {

enum class Body { kEmpty, kMul, kGather, kOneHot };

std::unique_ptr<Session> GpuSession(const Scope& root) {
  FB_CHECK(root.ok()) << root.status();
  SessionOptions so;
  auto devices = CreateDevicesForFlag("gpu:1", 8);
  FB_CHECK(devices.ok()) << devices.status();
  so.device_mgr = *devices;
  so.default_passes = false;
  auto s = Session::Create(so);
  FB_CHECK(s.ok()) << s.status();
  FB_CHECK((*s)->Extend(root.ToGraphDef()).ok());
  return std::move(*s);
}

void TimeRuns(benchmark::State& state, Session* session, const std::string& fetch, int n) {
  std::vector<Tensor> result;
  Status first = session->Run({}, {fetch}, {}, &result);
  FB_CHECK(first.ok()) << first;
  for (auto _ : state) {
    Status st = session->Run({}, {fetch}, {}, &result);
    for (Device* d : session->device_mgr()->devices())
      if (st.ok()) st = d->Sync();
    FB_CHECK(st.ok()) << st;
  }
  state.counters["us_per_iteration"] = benchmark::Counter(
      static_cast<double>(n) * state.iterations() / 1e6,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

Output Floats(const Scope& s, const std::vector<int64_t>& shape) {
  return ops::Fill(s, ops::IntConst(s, shape), ops::Const(s, 1.0f));
}

void BM_GpuLoop(benchmark::State& state, Body body) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output table = Floats(root, {body == Body::kGather ? n : 1, 64, 512});
  std::vector<Output> init = {ops::Const(root, int32_t{0}), Floats(root, {64, 512})};
  auto out = ops::WhileLoop(
      root, init,
      [n](const Scope& s, const std::vector<Output>& v) {
        return ops::Less(s, v[0], ops::Const(s, int32_t{n}));
      },
      [&](const Scope& s, const std::vector<Output>& v) {
        Output x = v[1];
        if (body == Body::kMul) x = ops::Mul(s, x, ops::Const(s, 1.0001f));
        if (body == Body::kGather) x = ops::Add(s, x, ops::Gather(s, table, v[0]));
        if (body == Body::kOneHot)
          x = ops::Add(s, x, ops::Sum(s, ops::OneHot(s, v[0], 32), std::vector<int>{0}));
        return std::vector<Output>{ops::Add(s, v[0], ops::Const(s, int32_t{1})), x};
      });
  auto session = GpuSession(root);
  TimeRuns(state, session.get(), out[1].name(), n);
}

void BM_GpuChainMul(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  Output x = Floats(root, {64, 512});
  Output k = ops::Const(root, 1.0001f);
  for (int i = 0; i < n; ++i) x = ops::Mul(root, x, k);
  auto session = GpuSession(root);
  TimeRuns(state, session.get(), x.name(), n);
}

#define FB_LOOP_ARGS ->Arg(2000)->UseRealTime()->Unit(benchmark::kMillisecond)
BENCHMARK_CAPTURE(BM_GpuLoop, Empty, Body::kEmpty) FB_LOOP_ARGS;
BENCHMARK_CAPTURE(BM_GpuLoop, Mul, Body::kMul) FB_LOOP_ARGS;
BENCHMARK_CAPTURE(BM_GpuLoop, Gather, Body::kGather) FB_LOOP_ARGS;
BENCHMARK_CAPTURE(BM_GpuLoop, OneHot, Body::kOneHot) FB_LOOP_ARGS;
BENCHMARK(BM_GpuChainMul) FB_LOOP_ARGS;
#undef FB_LOOP_ARGS

}  // namespace
}  // namespace fb
