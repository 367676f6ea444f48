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

// The fully connected layers of AlexNet (batch 32) and Overfeat (batch 8), forward and the two
// gradients (issue 16): MatMul through Session::Run (2 threads; since issue 16 split over the
// intra-op pool, ShardedGemm) next to one single-threaded cblas_sgemm of the same product, which
// is what the MatMul kernel ran before. Args: m, k, n, transpose_a, transpose_b.
void FcArgs(benchmark::internal::Benchmark* b) {
  b->Args({32, 9216, 4096, 0, 0})    // alexnet fc6 forward
      ->Args({32, 4096, 9216, 0, 1})  // its input gradient: dy x w^T
      ->Args({9216, 32, 4096, 1, 0})  // its weight gradient: x^T x dy
      ->Args({8, 36864, 3072, 0, 0})  // overfeat fc6 forward
      ->Args({36864, 8, 3072, 1, 0});  // its weight gradient
}

void SetGemmFlops(benchmark::State& state) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * state.range(0) * state.range(1) * state.range(2) * state.iterations() / 1e9,
      benchmark::Counter::kIsRate);
}

void BM_MatMulFc(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  const TensorShape sa = ta ? TensorShape{k, m} : TensorShape{m, k};
  const TensorShape sb = tb ? TensorShape{n, k} : TensorShape{k, n};
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DataType::kFloat, sa);
  auto b = ops::Placeholder(root.WithOpName("b"), DataType::kFloat, sb);
  auto c = ops::MatMul(root.WithOpName("c"), a, b, ta, tb);
  auto session = bench::MakeSession(root, 2);
  std::vector<Session::NamedTensor> feeds = {{"a:0", bench::RandomFloats(sa, 1)},
                                             {"b:0", bench::RandomFloats(sb, 2)}};
  bench::RunOnce(session.get(), feeds, {"c:0"});
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status st = session->Run(feeds, {"c:0"}, {}, &out);
    benchmark::DoNotOptimize(st);
  }
  SetGemmFlops(state);
}
BENCHMARK(BM_MatMulFc)->Apply(FcArgs)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_SgemmOneThreadFc(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0)), k = static_cast<int>(state.range(1));
  const int n = static_cast<int>(state.range(2));
  const bool ta = state.range(3) != 0, tb = state.range(4) != 0;
  Tensor a = bench::RandomFloats({m, k}, 1), b = bench::RandomFloats({k, n}, 2);
  Tensor c(DataType::kFloat, TensorShape{m, n});
  const int threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m,
                n, k, 1.0f, a.data<float>(), ta ? m : k, b.data<float>(), tb ? k : n, 0.0f,
                c.data<float>(), n);
    benchmark::DoNotOptimize(c.data<float>());
  }
  openblas_set_num_threads(threads);
  SetGemmFlops(state);
}
BENCHMARK(BM_SgemmOneThreadFc)->Apply(FcArgs)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fb
