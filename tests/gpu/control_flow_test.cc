// Control flow on the GPU (kernels/cuda/control_flow_ops.cc): the kernels forward GPU tensors
// without copying them and read the predicate and accumulator index from device memory; while
// loops, and the gradient of one with its forward accumulators, run through a Session with their
// nodes on /device:GPU:0 and give the CPU's results.
#include <catch2/catch.hpp>

#include "engine/autodiff/gradients.h"
#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::Gpu;
using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;

struct RawRun {
  Status status;
  std::vector<TensorValue> outputs;  // as the kernel left them (GPU tensors stay on the GPU)
  std::vector<bool> dead;
};

// Runs `kernel` on the GPU with inputs as given (no copies; `dead` marks dead inputs).
RawRun RunOnGpu(OpKernel* kernel, std::vector<TensorValue> inputs, std::vector<bool> dead = {}) {
  if (dead.empty()) dead.assign(inputs.size(), false);
  OpKernelContext::Params params;
  params.device = Gpu();
  params.kernel = kernel;
  params.inputs = &inputs;
  params.input_is_dead = &dead;
  params.step_id = 7;
  OpKernelContext ctx(&params);
  Gpu()->Compute(kernel, &ctx);
  RawRun r{ctx.status(), {}, {}};
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    r.outputs.push_back(ctx.output_value(i));
    r.dead.push_back(ctx.output_is_dead(i));
  }
  REQUIRE(Gpu()->Sync().ok());
  return r;
}

std::unique_ptr<OpKernel> GpuKernel(const NodeDef& n) {
  auto k = KernelRegistry::Global()->CreateKernel(Gpu(), n);
  INFO(k.status().ToString());
  REQUIRE(k.ok());
  return std::move(*k);
}

TensorValue OnGpu(const Tensor& host) {
  auto t = Gpu()->CopyFromHost(host);
  REQUIRE(t.ok());
  return TensorValue{*t, nullptr};
}

TEST_CASE("GPU Switch reads a predicate in GPU memory and forwards without copying",
          "[gpu][control_flow]") {
  auto sw = GpuKernel(Node("Switch", 2, {{"T", kF}}));
  TensorValue data = OnGpu(Random(kF, {3, 4}));
  for (bool pred : {false, true}) {
    RawRun r = RunOnGpu(sw.get(), {data, OnGpu(Tensor::Scalar<bool>(pred))});
    REQUIRE(r.status.ok());
    const int taken = pred ? 1 : 0;
    CHECK(r.dead[1 - taken]);
    CHECK(!r.dead[taken]);
    CHECK(r.outputs[taken].tensor.raw_data() == data.tensor.raw_data());  // no copy
  }
  // A host predicate (an executor that honours HostMemory("pred")) works as well.
  RawRun host = RunOnGpu(sw.get(), {data, TensorValue{Tensor::Scalar<bool>(true), nullptr}});
  REQUIRE(host.status.ok());
  CHECK(host.dead[0]);
  RawRun bad = RunOnGpu(sw.get(), {data, OnGpu(Tensor::FromVector<bool>({true, false}, {2}))});
  REQUIRE(!bad.status.ok());
  CHECK_THAT(bad.status.message(), Catch::Contains("pred must be a scalar, got shape [2]"));
}

TEST_CASE("GPU Merge, LoopCond and the identities forward GPU tensors", "[gpu][control_flow]") {
  TensorValue a = OnGpu(Random(kF, {5}, -1, 1, 1)), b = OnGpu(Random(kF, {5}, -1, 1, 2));
  auto merge = GpuKernel(Node("Merge", 2, {{"T", kF}, {"N", 2}}));
  RawRun m = RunOnGpu(merge.get(), {TensorValue{}, b}, {true, false});
  REQUIRE(m.status.ok());
  CHECK(m.outputs[0].tensor.raw_data() == b.tensor.raw_data());
  REQUIRE(InHostMemory(m.outputs[1].tensor));  // value_index is HostMemory
  CHECK(m.outputs[1].tensor.scalar<int32_t>() == 1);

  auto loop_cond = GpuKernel(Node("LoopCond", 1, {}));
  RawRun lc = RunOnGpu(loop_cond.get(), {OnGpu(Tensor::Scalar<bool>(true))});
  REQUIRE(lc.status.ok());
  REQUIRE(InHostMemory(lc.outputs[0].tensor));  // the Switch nodes read it without copies
  CHECK(lc.outputs[0].tensor.scalar<bool>());

  for (const char* op : {"Enter", "Exit", "NextIteration"}) {
    AttrMap attrs = {{"T", kF}};
    if (std::string(op) == "Enter") attrs["frame_name"] = std::string("loop");
    auto k = GpuKernel(Node(op, 1, attrs));
    RawRun r = RunOnGpu(k.get(), {a});
    REQUIRE(r.status.ok());
    CHECK(r.outputs[0].tensor.raw_data() == a.tensor.raw_data());
  }
  auto trigger = GpuKernel(Node("ControlTrigger", 0, {}));
  CHECK(RunOnGpu(trigger.get(), {}).status.ok());
}

TEST_CASE("GPU accumulators save GPU tensors by an index held in GPU memory",
          "[gpu][control_flow]") {
  auto create = GpuKernel(Node("ForwardAccumulator", 0, {}));
  RawRun h = RunOnGpu(create.get(), {});
  REQUIRE(h.status.ok());
  TensorValue handle = h.outputs[0];
  REQUIRE(InHostMemory(handle.tensor));
  auto push = GpuKernel(Node("AccumulatorPush", 3, {{"T", kF}}));
  auto pop = GpuKernel(Node("AccumulatorPop", 2, {{"T", kF}}));
  TensorValue v0 = OnGpu(Random(kF, {2, 3}, -1, 1, 3)), v1 = OnGpu(Random(kF, {4}, -1, 1, 4));
  auto index = [](int32_t i) { return OnGpu(Tensor::Scalar<int32_t>(i)); };
  REQUIRE(RunOnGpu(push.get(), {handle, index(0), v0}).status.ok());
  REQUIRE(RunOnGpu(push.get(), {handle, index(1), v1}).status.ok());
  RawRun again = RunOnGpu(push.get(), {handle, index(1), v0});
  REQUIRE(!again.status.ok());
  CHECK_THAT(again.status.message(), Catch::Contains("index 1 was already pushed"));
  RawRun missing = RunOnGpu(pop.get(), {handle, index(5)});  // never pushed: dead
  REQUIRE(missing.status.ok());
  CHECK(missing.dead[0]);
  RawRun p1 = RunOnGpu(pop.get(), {handle, index(1)});
  REQUIRE(p1.status.ok());
  CHECK(p1.outputs[0].tensor.raw_data() == v1.tensor.raw_data());
  RawRun p0 = RunOnGpu(pop.get(), {handle, index(0)});
  REQUIRE(p0.status.ok());
  CHECK(p0.outputs[0].tensor.raw_data() == v0.tensor.raw_data());
  auto bad = RunOnGpu(pop.get(), {handle, OnGpu(Tensor::FromVector<int32_t>({0, 1}, {2}))});
  REQUIRE(!bad.status.ok());
  CHECK_THAT(bad.status.message(), Catch::Contains("index must be a scalar"));
}

// `g` with every node requested on GPU:0 where a GPU kernel exists for it, else on CPU:0 (or
// every node on CPU:0 with gpu = false). Counts the GPU nodes per op in *gpu_ops.
GraphDef Placed(GraphDef g, bool gpu, std::map<std::string, int>* gpu_ops = nullptr) {
  for (NodeDef& n : g.nodes) {
    const bool on_gpu = gpu && KernelRegistry::Global()->HasKernel(DEVICE_GPU, n);
    n.device = on_gpu ? "/device:GPU:0" : "/device:CPU:0";
    if (on_gpu && gpu_ops) ++(*gpu_ops)[n.op];
  }
  return g;
}

std::vector<Tensor> RunPlaced(const Scope& root, bool gpu,
                              const std::vector<Session::NamedTensor>& feeds,
                              const std::vector<std::string>& fetches,
                              std::map<std::string, int>* gpu_ops = nullptr) {
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  auto session = fb::test::MakeSession(Placed(root.ToGraphDef(), gpu, gpu_ops));
  return fb::test::RunOk(session.get(), feeds, fetches);
}

TEST_CASE("A while loop runs through a Session with its nodes on the GPU",
          "[gpu][control_flow][session]") {
  // (i, x) -> (i + 1, 0.5 * x + 1) while i < 5, float counter so that every node has a GPU kernel
  // of its dtype (Const may stay on the host).
  Scope root = Scope::NewRootScope();
  auto x0 = ops::Placeholder(root.WithOpName("x0"), kF);
  auto out = ops::WhileLoop(
      root, {ops::Const(root, 0.0f), x0},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const(c, 5.0f));
      },
      [](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(b, v[0], ops::Const(b, 1.0f)),
                                   ops::Add(b, ops::Mul(b, v[1], ops::Const(b, 0.5f)),
                                            ops::Const(b, 1.0f))};
      });
  Tensor x = Tensor::FromVector<float>({0, 2, 64}, {3});
  std::map<std::string, int> gpu_ops;
  auto gpu = RunPlaced(root, true, {{"x0:0", x}}, {out[0].name(), out[1].name()}, &gpu_ops);
  for (const char* op : {"Enter", "Merge", "Switch", "NextIteration", "Exit"}) {
    INFO(op);
    CHECK(gpu_ops[op] == 2);  // one per loop variable
  }
  CHECK(gpu_ops["LoopCond"] == 1);
  CHECK(gpu[0].scalar<float>() == 5.0f);
  // x_5 = x / 32 + 2 - 1/16 exactly in float.
  CHECK(fb::test::Values<float>(gpu[1]) ==
        std::vector<float>{2 - 1.0f / 16, 2.0f / 32 + 2 - 1.0f / 16, 2 + 2 - 1.0f / 16});
  auto cpu = RunPlaced(root, false, {{"x0:0", x}}, {out[1].name()});
  CHECK(fb::test::Values<float>(cpu[0]) == fb::test::Values<float>(gpu[1]));
}

TEST_CASE("The gradient of a while loop runs on the GPU with its accumulators",
          "[gpu][control_flow][session]") {
  // x_{k+1} = tanh(W x_k) + 0.5 x_k, 4 times; d sum(x_4) / d(W, x_0) through forward accumulators.
  Scope root = Scope::NewRootScope();
  auto w = ops::Placeholder(root.WithOpName("w"), kF);
  auto x0 = ops::Placeholder(root.WithOpName("x0"), kF);
  auto int32 = [](const Scope& s, int v) { return ops::Const(s, static_cast<int32_t>(v)); };
  auto looped = ops::WhileLoop(
      root, {int32(root, 0), x0},
      [&](const Scope& c, const std::vector<Output>& v) { return ops::Less(c, v[0], int32(c, 4)); },
      [&](const Scope& b, const std::vector<Output>& v) {
        Output step = ops::Add(b, ops::Tanh(b, ops::MatMul(b, w, v[1])),
                               ops::Mul(b, v[1], ops::Const(b, 0.5f)));
        return std::vector<Output>{ops::Add(b, v[0], int32(b, 1)), step};
      })[1];
  Output loss = ops::Sum(root, looped, std::vector<int>{0, 1});
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {loss}, {w, x0}, {}, &grads).ok());
  const std::vector<Session::NamedTensor> feeds = {{"w:0", Random(kF, {3, 3}, -1, 1, 5)},
                                                   {"x0:0", Random(kF, {3, 2}, -1, 1, 6)}};
  const std::vector<std::string> fetches = {loss.name(), grads[0].name(), grads[1].name()};
  std::map<std::string, int> gpu_ops;
  auto gpu = RunPlaced(root, true, feeds, fetches, &gpu_ops);
  for (const char* op : {"ForwardAccumulator", "AccumulatorPush", "AccumulatorPop", "MatMul"}) {
    INFO(op);
    CHECK(gpu_ops[op] >= 1);
  }
  auto cpu = RunPlaced(root, false, feeds, fetches);
  for (size_t i = 0; i < fetches.size(); ++i) {
    INFO(fetches[i]);
    fb::test::ExpectClose(gpu[i], cpu[i], 1e-5, 1e-6);
  }
}

}  // namespace
}  // namespace fb::gpu
