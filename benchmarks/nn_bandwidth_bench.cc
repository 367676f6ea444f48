// The memory-bound neural-net kernels of the convnets, float32 NHWC, through Session::Run on one
// CPU device with 2 threads: MaxPool, AvgPool and their gradients at pooling layers of AlexNet,
// VGG, Inception-v3 and GoogLeNet, and BiasAdd, BiasAddGrad, Relu, ReluGrad at a VGG activation.
// Counter: GB/s = bytes of every tensor read or written once (inputs + output) / time.
//   build/flowbench-bench --benchmark_filter='Pool|Bias|Relu'
#include <benchmark/benchmark.h>

#include "benchmarks/bench_util.h"
#include "engine/client/array_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"

namespace fb {
namespace {

struct PoolLayer {
  const char* name;
  int64_t batch, height, width, depth, window, stride;
  const char* padding;
  bool max;
};

constexpr PoolLayer kPoolLayers[] = {
    {"alexnet_pool1", 32, 55, 55, 64, 3, 2, "VALID", true},
    {"vgg_pool1", 8, 224, 224, 64, 2, 2, "VALID", true},
    {"inception3_35_avg", 8, 35, 35, 288, 3, 1, "SAME", false},
    {"googlenet_avg7", 16, 7, 7, 1024, 7, 1, "VALID", false},
};

// Output-size of the pooled tensor.
TensorShape PooledShape(const PoolLayer& p) {
  auto out = [&](int64_t in) {
    return std::string(p.padding) == "SAME" ? (in + p.stride - 1) / p.stride
                                            : (in - p.window) / p.stride + 1;
  };
  return {p.batch, out(p.height), out(p.width), p.depth};
}

void SetBandwidth(benchmark::State& state, double bytes) {
  state.counters["GB/s"] =
      benchmark::Counter(bytes * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}

// Runs fetch "y:0" of the graph in `root` with `feeds` in the timed loop.
void RunLoop(benchmark::State& state, const Scope& root,
             const std::vector<Session::NamedTensor>& feeds, double bytes) {
  auto session = bench::MakeSession(root, 2);
  bench::RunOnce(session.get(), feeds, {"y:0"});
  std::vector<Tensor> out;
  for (auto _ : state) {
    Status st = session->Run(feeds, {"y:0"}, {}, &out);
    benchmark::DoNotOptimize(st);
  }
  SetBandwidth(state, bytes);
}

void BM_Pool(benchmark::State& state, PoolLayer p, bool grad) {
  const TensorShape in_shape{p.batch, p.height, p.width, p.depth};
  const TensorShape out_shape = PooledShape(p);
  const ops::Window2D ksize{p.window, p.window}, strides{p.stride, p.stride};
  const double in_bytes = 4.0 * in_shape.num_elements(), out_bytes = 4.0 * out_shape.num_elements();
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, in_shape);
  auto g = ops::Placeholder(root.WithOpName("g"), DataType::kFloat, out_shape);
  std::vector<Session::NamedTensor> feeds = {{"x:0", bench::RandomFloats(in_shape, 1)}};
  Scope y = root.WithOpName("y");
  double bytes = in_bytes + out_bytes;
  if (!grad) {
    p.max ? ops::MaxPool(y, x, ksize, strides, p.padding)
          : ops::AvgPool(y, x, ksize, strides, p.padding);
  } else if (p.max) {
    // The kernel recomputes each window's argmax from x; orig_output only has to have the
    // pooled shape, so it is fed (random values) and only MaxPoolGrad runs in the loop.
    auto pooled = ops::Placeholder(root.WithOpName("o"), DataType::kFloat, out_shape);
    ops::MaxPoolGrad(y, x, pooled, g, ksize, strides, p.padding);
    feeds.push_back({"o:0", bench::RandomFloats(out_shape, 3)});
    bytes = 2 * in_bytes + 2 * out_bytes;
  } else {
    feeds.clear();
    ops::AvgPoolGrad(y, ops::IntConst(root, in_shape.dim_sizes()), g, ksize, strides, p.padding);
    bytes = in_bytes + out_bytes;
  }
  feeds.push_back({"g:0", bench::RandomFloats(out_shape, 2)});
  RunLoop(state, root, feeds, bytes);
}

// BiasAdd, BiasAddGrad, Relu, ReluGrad on VGG conv2's output [8, 112, 112, 128].
enum class Elementwise { kBiasAdd, kBiasAddGrad, kRelu, kReluGrad };

void BM_Elementwise(benchmark::State& state, Elementwise op) {
  const TensorShape shape{8, 112, 112, 128};
  const double bytes = 4.0 * shape.num_elements();
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, shape);
  auto g = ops::Placeholder(root.WithOpName("g"), DataType::kFloat, shape);
  auto b = ops::Placeholder(root.WithOpName("b"), DataType::kFloat, TensorShape{128});
  std::vector<Session::NamedTensor> feeds = {{"x:0", bench::RandomFloats(shape, 1)}};
  Scope y = root.WithOpName("y");
  switch (op) {
    case Elementwise::kBiasAdd:
      ops::BiasAdd(y, x, b);
      feeds.push_back({"b:0", bench::RandomFloats({128}, 2)});
      return RunLoop(state, root, feeds, 2 * bytes);
    case Elementwise::kBiasAddGrad:
      ops::BiasAddGrad(y, x);
      return RunLoop(state, root, feeds, bytes);
    case Elementwise::kRelu:
      ops::Relu(y, x);
      return RunLoop(state, root, feeds, 2 * bytes);
    case Elementwise::kReluGrad:
      ops::ReluGrad(y, g, x);
      feeds.push_back({"g:0", bench::RandomFloats(shape, 2)});
      return RunLoop(state, root, feeds, 3 * bytes);
  }
}

int RegisterBandwidthBenchmarks() {
  for (const PoolLayer& p : kPoolLayers)
    for (bool grad : {false, true}) {
      std::string name = std::string(p.max ? "MaxPool" : "AvgPool") + (grad ? "Grad/" : "/");
      benchmark::RegisterBenchmark((name + p.name).c_str(), BM_Pool, p, grad)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
    }
  const std::pair<const char*, Elementwise> ops[] = {
      {"BiasAdd/vgg_conv2", Elementwise::kBiasAdd},
      {"BiasAddGrad/vgg_conv2", Elementwise::kBiasAddGrad},
      {"Relu/vgg_conv2", Elementwise::kRelu},
      {"ReluGrad/vgg_conv2", Elementwise::kReluGrad}};
  for (const auto& [name, op] : ops)
    benchmark::RegisterBenchmark(name, BM_Elementwise, op)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  return 0;
}
const int kRegistered = RegisterBandwidthBenchmarks();

}  // namespace
}  // namespace fb
