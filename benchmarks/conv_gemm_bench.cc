// The GEMM of one block of each convolution layer (benchmarks/conv_layers.h, blocks as the CPU
// kernels cut them: nn::PartitionPatches) on one thread, with each ConvSgemm backend
// (kernels/cpu/conv_gemm.h): ConvGemm/<layer>/<form>/<backend>, form fwd (patches x filter),
// bwd_input (out_backprop x filter^T) or bwd_filter (patches^T x out_backprop, beta = 1), backend
// openblas or onednn (when built). GFLOP/s = 2 x multiply-adds / time. Single-threaded calls of
// about a millisecond: on the shared machine, compare the fastest of several repetitions
// (--benchmark_repetitions=20 --benchmark_report_aggregates_only=false), which a loaded core still
// delivers between preemptions.
//   build/flowbench-bench --benchmark_filter=ConvGemm/ --benchmark_repetitions=20
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>

#include "benchmarks/bench_util.h"
#include "benchmarks/conv_layers.h"
#include "engine/ops/nn_ops_common.h"
#include "kernels/cpu/conv_kernels.h"

namespace fb {
namespace {

using bench::ConvLayer;
using nn::ConvGemmBackend;

enum class Form { kForward, kBackpropInput, kBackpropFilter };

// The layer's geometry (as the kernels compute it).
StatusOr<Conv2DShape> ShapeOf(const ConvLayer& c) {
  Window2DAttrs a;
  a.stride_rows = a.stride_cols = c.stride;
  a.padding = std::string(c.padding) == "SAME" ? Padding::kSame : Padding::kValid;
  return ComputeConv2DShape({c.batch, c.height, c.width, c.in_ch},
                            {c.kernel, c.kernel, c.in_ch, c.out_ch}, a);
}

void BM_ConvGemm(benchmark::State& state, ConvLayer c, Form form, ConvGemmBackend backend) {
  auto s = ShapeOf(c);
  if (!s.ok()) return state.SkipWithError(s.status().ToString().c_str());
  const ConvGemmBackend saved = nn::CurrentConvGemmBackend();
  nn::SetConvGemmBackend(backend);
  const int64_t m = nn::PartitionPatches<float>(*s).max_patches, k = nn::PatchSize(*s);
  const int64_t n = c.out_ch;
  Tensor patches = bench::RandomFloats({m, k}, 1), filter = bench::RandomFloats({k, n}, 2);
  Tensor dy = bench::RandomFloats({m, n}, 3);
  Tensor out(DataType::kFloat, TensorShape{m * std::max(k, n) + k * n});  // any form's c
  float* o = out.data<float>();
  for (auto _ : state) {
    switch (form) {
      case Form::kForward:
        nn::ConvSgemm(false, false, m, n, k, 1, patches.data<float>(), k, filter.data<float>(), n,
                      0, o, n);
        break;
      case Form::kBackpropInput:
        nn::ConvSgemm(false, true, m, k, n, 1, dy.data<float>(), n, filter.data<float>(), n, 0,
                      o, k);
        break;
      case Form::kBackpropFilter:
        nn::ConvSgemm(true, false, k, n, m, 1, patches.data<float>(), k, dy.data<float>(), n, 1,
                      o, n);
        break;
    }
    benchmark::DoNotOptimize(o);
  }
  nn::SetConvGemmBackend(saved);
  state.counters["GFLOP/s"] =
      benchmark::Counter(2.0 * m * n * k * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

int RegisterConvGemmBenchmarks() {
  const std::pair<const char*, Form> forms[] = {{"fwd", Form::kForward},
                                                {"bwd_input", Form::kBackpropInput},
                                                {"bwd_filter", Form::kBackpropFilter}};
  std::vector<ConvGemmBackend> backends = {ConvGemmBackend::kOpenBlas};
  if (nn::DnnlAvailable()) backends.push_back(ConvGemmBackend::kDnnl);
  for (const ConvLayer& c : bench::kConvLayers) {
    if (c.out_ch <= nn::kNarrowGemmMaxN) continue;  // LeNet: the narrow kernels, not ConvSgemm
    for (const auto& [name, form] : forms)
      for (ConvGemmBackend b : backends)
        benchmark::RegisterBenchmark(
            (std::string("ConvGemm/") + c.name + "/" + name + "/" + nn::ConvGemmBackendName(b))
                .c_str(),
            BM_ConvGemm, c, form, b)
            ->Unit(benchmark::kMillisecond);
  }
  return 0;
}
const int kRegistered = RegisterConvGemmBenchmarks();

}  // namespace
}  // namespace fb
