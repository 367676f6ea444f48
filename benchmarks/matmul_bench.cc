// MatMul float32 (whitepaper 5.4: optimized libraries) through Session::Run next to the
// machine's OpenBLAS cblas_sgemm called directly, in the same run. Counter: GFLOP/s
// (2*M*N*K per product). Target: flowbench at least 80% of OpenBLAS.
//   build/flowbench-bench --benchmark_filter='MatMul|Sgemm'
#include <benchmark/benchmark.h>
#include <cblas.h>

#include "benchmarks/bench_util.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"

namespace fb {
namespace {

void SetFlops(benchmark::State& state, int64_t n) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * state.iterations() / 1e9,
                                                 benchmark::Counter::kIsRate);
}

void BM_MatMul(benchmark::State& state) {
  const int64_t n = state.range(0);
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DataType::kFloat, {n, n});
  auto b = ops::Placeholder(root.WithOpName("b"), DataType::kFloat, {n, n});
  auto c = ops::MatMul(root.WithOpName("c"), a, b);
  auto session = bench::MakeSession(root, 2);
  std::vector<Session::NamedTensor> feeds = {{"a:0", bench::RandomFloats({n, n}, 1)},
                                             {"b:0", bench::RandomFloats({n, n}, 2)}};
  bench::RunOnce(session.get(), feeds, {"c:0"});
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status st = session->Run(feeds, {"c:0"}, {}, &out);
    benchmark::DoNotOptimize(st);
  }
  SetFlops(state, n);
}
BENCHMARK(BM_MatMul)->Arg(256)->Arg(1024)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_OpenBlasSgemm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  Tensor a = bench::RandomFloats({n, n}, 1), b = bench::RandomFloats({n, n}, 2);
  Tensor c(DataType::kFloat, TensorShape{n, n});
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data<float>(), n,
                b.data<float>(), n, 0.0f, c.data<float>(), n);
    benchmark::DoNotOptimize(c.data<float>());
  }
  SetFlops(state, n);
}
BENCHMARK(BM_OpenBlasSgemm)->Arg(256)->Arg(1024)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fb
