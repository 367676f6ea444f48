// Conv2D float32 NHWC at LeNet-5 and AlexNet layer shapes (whitepaper 5.4), forward pass through
// Session::Run on one CPU device with 2 threads. Counter: GFLOP/s (2*N*OH*OW*KH*KW*C*K).
//   build/flowbench-bench --benchmark_filter=Conv2D
#include <benchmark/benchmark.h>

#include "benchmarks/bench_util.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"

namespace fb {
namespace {

struct ConvShape {
  const char* name;
  int64_t batch, height, width, in_ch, kernel, out_ch, stride;
  const char* padding;
};

// LeNet-5 (issue 3's model, batch 64) and AlexNet (Krizhevsky et al. 2012, batch 32).
constexpr ConvShape kShapes[] = {
    {"lenet_conv1", 64, 28, 28, 1, 5, 6, 1, "SAME"},
    {"lenet_conv2", 64, 14, 14, 6, 5, 16, 1, "VALID"},
    {"alexnet_conv1", 32, 227, 227, 3, 11, 64, 4, "VALID"},
    {"alexnet_conv2", 32, 27, 27, 64, 5, 192, 1, "SAME"},
    {"alexnet_conv3", 32, 13, 13, 192, 3, 384, 1, "SAME"},
};

int64_t OutDim(int64_t in, int64_t k, int64_t stride, const std::string& padding) {
  return padding == "SAME" ? (in + stride - 1) / stride : (in - k) / stride + 1;
}

void BM_Conv2D(benchmark::State& state) {
  const ConvShape& c = kShapes[state.range(0)];
  state.SetLabel(c.name);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat,
                            {c.batch, c.height, c.width, c.in_ch});
  auto f = ops::Placeholder(root.WithOpName("f"), DataType::kFloat,
                            {c.kernel, c.kernel, c.in_ch, c.out_ch});
  ops::Conv2D(root.WithOpName("y"), x, f, {c.stride, c.stride}, c.padding);
  auto session = bench::MakeSession(root, 2);
  std::vector<Session::NamedTensor> feeds = {
      {"x:0", bench::RandomFloats({c.batch, c.height, c.width, c.in_ch}, 1)},
      {"f:0", bench::RandomFloats({c.kernel, c.kernel, c.in_ch, c.out_ch}, 2)}};
  bench::RunOnce(session.get(), feeds, {"y:0"});
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status st = session->Run(feeds, {"y:0"}, {}, &out);
    benchmark::DoNotOptimize(st);
  }
  double oh = OutDim(c.height, c.kernel, c.stride, c.padding);
  double ow = OutDim(c.width, c.kernel, c.stride, c.padding);
  double flops = 2.0 * c.batch * oh * ow * c.kernel * c.kernel * c.in_ch * c.out_ch;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Conv2D)->DenseRange(0, 4)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fb
