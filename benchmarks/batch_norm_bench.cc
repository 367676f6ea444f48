// FusedBatchNorm (training form) and FusedBatchNormGrad float32 NHWC at ResNet-50 layer shapes,
// batch 32, through Session::Run on one CPU device with 2 threads, next to Mul(x, x) on the same
// tensor as the memory-bound reference (one read, one write per element). Counter: GB/s of
// tensor traffic (forward: x read twice, y written; backward: dy and x read twice, dx written).
//   build/flowbench-bench --benchmark_filter=BatchNorm
#include <benchmark/benchmark.h>

#include "benchmarks/bench_util.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"

namespace fb {
namespace {

struct BnShape {
  const char* name;
  int64_t batch, size, channels;
};

// ResNet-50 at 224x224: conv1's output, a layer1/layer2 block output and layer4's.
constexpr BnShape kShapes[] = {
    {"conv1_112x112x64", 32, 112, 64},
    {"layer1_56x56x256", 32, 56, 256},
    {"layer2_28x28x512", 32, 28, 512},
    {"layer4_7x7x2048", 32, 7, 2048},
};

// kind 0: FusedBatchNorm, 1: FusedBatchNormGrad, 2: Mul(x, x).
void BM_BatchNorm(benchmark::State& state) {
  const BnShape& c = kShapes[state.range(0)];
  const int kind = static_cast<int>(state.range(1));
  const char* kinds[] = {"FusedBatchNorm", "FusedBatchNormGrad", "Mul reference"};
  state.SetLabel(std::string(c.name) + " " + kinds[kind]);
  const TensorShape shape{c.batch, c.size, c.size, c.channels};
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, shape);
  auto dy = ops::Placeholder(root.WithOpName("dy"), DataType::kFloat, shape);
  auto scale = ops::Const(root, bench::RandomFloats({c.channels}, 3));
  auto empty = ops::Const(root, Tensor(DataType::kFloat, TensorShape{0}));
  auto bn = ops::FusedBatchNorm(root.WithOpName("bn"), x, scale, scale, empty, empty);
  ops::FusedBatchNormGrad(root.WithOpName("bn_grad"), dy, x, scale, bn.reserve_space_1,
                          bn.reserve_space_2);
  ops::Mul(root.WithOpName("mul"), x, x);
  auto session = bench::MakeSession(root, 2);
  std::vector<Session::NamedTensor> feeds = {{"x:0", bench::RandomFloats(shape, 1)},
                                             {"dy:0", bench::RandomFloats(shape, 2)}};
  const std::vector<std::string> fetch = {kind == 0 ? "bn:0" : kind == 1 ? "bn_grad:0" : "mul:0"};
  bench::RunOnce(session.get(), feeds, fetch);
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status st = session->Run(feeds, fetch, {}, &out);
    benchmark::DoNotOptimize(st);
  }
  // The gradient's run includes its forward (reserve spaces): 3 + 5 passes over the tensor.
  const double passes = kind == 0 ? 3 : kind == 1 ? 8 : 2;
  const double bytes = passes * static_cast<double>(shape.num_elements()) * sizeof(float);
  state.counters["GB/s"] =
      benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BatchNorm)
    ->ArgsProduct({{0, 1, 2, 3}, {0, 1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fb
