// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter float32 NHWC at the convnet models'
// layer shapes (benchmarks/conv_layers.h), each through Session::Run on one CPU device with 2
// threads and OpenBLAS at 1 thread (the `flowbench train` default, --blas-threads 1), next to
// one cblas_sgemm of the forward pass's im2col shape with OpenBLAS at 2 threads (the ceiling).
// Counter: GFLOP/s = 2 * multiply-adds of the forward pass / time (the same count for each
// backprop). Names: Conv2D/<layer>, Conv2DBackpropInput/<layer>, Conv2DBackpropFilter/<layer>,
// Sgemm/<layer>.
//   build/flowbench-bench --benchmark_filter='/alexnet_conv2$'
//   /usr/bin/python3 benchmarks/conv_torch.py   (the same layers in PyTorch, side by side)
#include <benchmark/benchmark.h>
#include <cblas.h>

#include "benchmarks/bench_util.h"
#include "benchmarks/conv_layers.h"
#include "engine/client/array_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"
#include "kernels/cpu/matmul.h"

namespace fb {
namespace {

using bench::ConvLayer;

enum class ConvPass { kForward, kBackpropInput, kBackpropFilter };

TensorShape InputShape(const ConvLayer& c) { return {c.batch, c.height, c.width, c.in_ch}; }
TensorShape FilterShape(const ConvLayer& c) { return {c.kernel, c.kernel, c.in_ch, c.out_ch}; }
TensorShape OutputShape(const ConvLayer& c) {
  return {c.batch, c.OutRows(), c.OutCols(), c.out_ch};
}

// Builds the one-op graph of `pass` and its feeds: x (input), f (filter), g (out_backprop).
Output BuildPass(const Scope& root, const ConvLayer& c, ConvPass pass,
                 std::vector<Session::NamedTensor>* feeds) {
  const ops::Window2D strides{c.stride, c.stride};
  auto f = ops::Placeholder(root.WithOpName("f"), DataType::kFloat, FilterShape(c));
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, InputShape(c));
  auto g = ops::Placeholder(root.WithOpName("g"), DataType::kFloat, OutputShape(c));
  Scope y = root.WithOpName("y");
  switch (pass) {
    case ConvPass::kForward:
      feeds->push_back({"x:0", bench::RandomFloats(InputShape(c), 1)});
      feeds->push_back({"f:0", bench::RandomFloats(FilterShape(c), 2)});
      return ops::Conv2D(y, x, f, strides, c.padding);
    case ConvPass::kBackpropInput:
      feeds->push_back({"f:0", bench::RandomFloats(FilterShape(c), 2)});
      feeds->push_back({"g:0", bench::RandomFloats(OutputShape(c), 3)});
      return ops::Conv2DBackpropInput(y, ops::IntConst(root, InputShape(c).dim_sizes()), f, g,
                                      strides, c.padding);
    case ConvPass::kBackpropFilter:
      feeds->push_back({"x:0", bench::RandomFloats(InputShape(c), 1)});
      feeds->push_back({"g:0", bench::RandomFloats(OutputShape(c), 3)});
      return ops::Conv2DBackpropFilter(y, x, ops::IntConst(root, FilterShape(c).dim_sizes()), g,
                                       strides, c.padding);
  }
  return Output();
}

void SetFlops(benchmark::State& state, double flops) {
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// Sets OpenBLAS's thread count for one benchmark and restores it after (the other benchmarks of
// the binary, e.g. matmul_bench.cc, run with OpenBLAS's default).
class ScopedBlasThreads {
 public:
  explicit ScopedBlasThreads(int threads) : previous_(openblas_get_num_threads()) {
    SetBlasThreads(threads);
  }
  ~ScopedBlasThreads() { SetBlasThreads(previous_); }

 private:
  int previous_;
};

void BM_ConvPass(benchmark::State& state, ConvLayer c, ConvPass pass) {
  ScopedBlasThreads blas(1);
  Scope root = Scope::NewRootScope();
  std::vector<Session::NamedTensor> feeds;
  BuildPass(root, c, pass, &feeds);
  auto session = bench::MakeSession(root, 2);
  bench::RunOnce(session.get(), feeds, {"y:0"});
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status st = session->Run(feeds, {"y:0"}, {}, &out);
    benchmark::DoNotOptimize(st);
  }
  SetFlops(state, c.Flops());
}

// The forward pass's GEMM [m, k] x [k, n] alone, OpenBLAS on 2 threads.
void BM_Sgemm(benchmark::State& state, ConvLayer c) {
  ScopedBlasThreads blas(2);
  const int m = static_cast<int>(c.GemmM()), k = static_cast<int>(c.GemmK());
  const int n = static_cast<int>(c.out_ch);
  Tensor a = bench::RandomFloats({m, k}, 1), b = bench::RandomFloats({k, n}, 2);
  Tensor out(DataType::kFloat, TensorShape{m, n});
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data<float>(), k,
                b.data<float>(), n, 0.0f, out.data<float>(), n);
    benchmark::DoNotOptimize(out.data<float>());
  }
  SetFlops(state, c.Flops());
}

int RegisterConvBenchmarks() {
  const std::pair<const char*, ConvPass> passes[] = {
      {"Conv2D/", ConvPass::kForward},
      {"Conv2DBackpropInput/", ConvPass::kBackpropInput},
      {"Conv2DBackpropFilter/", ConvPass::kBackpropFilter}};
  for (const ConvLayer& c : bench::kConvLayers) {
    for (const auto& [prefix, pass] : passes)
      benchmark::RegisterBenchmark((std::string(prefix) + c.name).c_str(), BM_ConvPass, c, pass)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("Sgemm/") + c.name).c_str(), BM_Sgemm, c)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int kRegistered = RegisterConvBenchmarks();

}  // namespace
}  // namespace fb
