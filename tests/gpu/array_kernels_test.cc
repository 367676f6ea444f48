// GPU kernels of the shape and array ops (kernels/cuda/shape_ops.cc, array_ops.cc) against the
// CPU kernels, exactly (they move values, no arithmetic), and the HostMemory mechanics on a GPU:
// metadata outputs in host memory, views sharing the GPU buffer, and a Session whose shape
// tensors cross from the CPU to HostMemory inputs on the GPU. Bad inputs fail with the CPU's
// messages (and, through a Session, name the node).
#include <catch2/catch.hpp>

#include "engine/framework/tensor_allocate.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;
constexpr DataType kD = DataType::kDouble;
constexpr DataType kI = DataType::kInt32;

Tensor Ints(std::vector<int32_t> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return Tensor::FromVector<int32_t>(std::move(v), {n});
}
Tensor IntScalar(int32_t v) { return Tensor::Scalar<int32_t>(v); }

// Runs `node` on the GPU with inputs placed as the executor places them and returns the kernel's
// outputs where the kernel left them (not copied back), with the inputs it ran on.
struct RawRun {
  std::vector<TensorValue> inputs;
  std::vector<Tensor> outputs;
};
RawRun RunRaw(const NodeDef& node, const std::vector<Tensor>& inputs) {
  auto kernel = KernelRegistry::Global()->CreateKernel(test::Gpu(), node);
  INFO(kernel.status().ToString());
  REQUIRE(kernel.ok());
  RawRun r;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Tensor t = inputs[i];
    if (!(*kernel)->input_on_host(static_cast<int>(i))) t = *test::Gpu()->CopyFromHost(t);
    r.inputs.push_back(TensorValue{t, nullptr});
  }
  OpKernelContext::Params params;
  params.device = test::Gpu();
  params.kernel = kernel->get();
  params.inputs = &r.inputs;
  OpKernelContext ctx(&params);
  test::Gpu()->Compute(kernel->get(), &ctx);
  INFO(ctx.status().ToString());
  REQUIRE(ctx.status().ok());
  for (int i = 0; i < ctx.num_outputs(); ++i) r.outputs.push_back(ctx.output_value(i).tensor);
  REQUIRE(test::Gpu()->Sync().ok());
  return r;
}

// The GPU fails like the CPU on bad inputs: same message, which contains `expected`.
void ExpectSameError(const NodeDef& n, const std::vector<Tensor>& inputs,
                     const std::string& expected) {
  auto cpu = test::TryRun(test::Cpu(), n, inputs);
  auto gpu = test::TryRun(test::Gpu(), n, inputs);
  INFO(n.op);
  REQUIRE(!cpu.ok());
  REQUIRE(!gpu.ok());
  CHECK(gpu.status().message() == cpu.status().message());
  CHECK_THAT(gpu.status().message(), Catch::Contains(expected));
}

TEST_CASE("GPU Shape Size and Rank output host memory equal to the CPU's", "[gpu][array]") {
  Tensor x = Random(kF, {3, 4, 5});
  for (const char* op : {"Shape", "Size", "Rank"}) {
    INFO(op);
    NodeDef n = Node(op, 1, {{"T", kF}});
    ExpectGpuMatchesCpu(n, {x}, 0, 0);
    RawRun r = RunRaw(n, {x});
    CHECK(!InHostMemory(r.inputs[0].tensor));  // the data stays on the GPU
    CHECK(InHostMemory(r.outputs[0]));
  }
  RawRun r = RunRaw(Node("Shape", 1, {{"T", kF}, {"out_type", DataType::kInt64}}), {x});
  CHECK(r.outputs[0].dtype() == DataType::kInt64);
  CHECK(fb::test::Values<int64_t>(r.outputs[0]) == std::vector<int64_t>{3, 4, 5});
}

TEST_CASE("GPU Reshape ExpandDims Squeeze and StopGradient share the GPU buffer", "[gpu][array]") {
  Tensor x = Random(kF, {2, 1, 6});
  struct Case {
    NodeDef node;
    std::vector<Tensor> inputs;
    TensorShape expected;
  };
  std::vector<Case> cases = {
      {Node("Reshape", 2, {{"T", kF}}), {x, Ints({3, -1})}, {3, 4}},
      {Node("ExpandDims", 2, {{"T", kF}}), {x, IntScalar(-1)}, {2, 1, 6, 1}},
      {Node("Squeeze", 1, {{"T", kF}}), {x}, {2, 6}},
      {Node("StopGradient", 1, {{"T", kF}}), {x}, {2, 1, 6}}};
  for (const Case& c : cases) {
    INFO(c.node.op);
    ExpectGpuMatchesCpu(c.node, c.inputs, 0, 0);
    RawRun r = RunRaw(c.node, c.inputs);
    CHECK(r.outputs[0].shape() == c.expected);
    CHECK(r.outputs[0].raw_data() == r.inputs[0].tensor.raw_data());
    CHECK(!InHostMemory(r.outputs[0]));
  }
  // int32 data lives on the host on the GPU device (TensorFlow's convention).
  RawRun r = RunRaw(Node("Reshape", 2, {{"T", kI}}), {Ints({1, 2, 3, 4}), Ints({2, 2})});
  CHECK(InHostMemory(r.outputs[0]));
  CHECK(fb::test::Values<int32_t>(r.outputs[0]) == std::vector<int32_t>{1, 2, 3, 4});
  ExpectSameError(Node("Reshape", 2, {{"T", kF}}), {x, Ints({5, 5})}, "requested shape [5,5]");
}

TEST_CASE("GPU gradient shape ops compute on the host like the CPU", "[gpu][array]") {
  ExpectGpuMatchesCpu(Node("BroadcastGradientArgs", 2, {{"T", kI}}),
                      {Ints({2, 3, 4}), Ints({3, 1})}, 0, 0);
  ExpectGpuMatchesCpu(Node("ReducedShape", 2, {{"Tidx", kI}}), {Ints({2, 3, 4}), Ints({1, -1})},
                      0, 0);
  ExpectGpuMatchesCpu(Node("ConcatOffset", 3, {{"N", int64_t{2}}}),
                      {IntScalar(1), Ints({2, 3, 5}), Ints({2, 4, 5})}, 0, 0);
  ExpectGpuMatchesCpu(Node("InvertPermutation", 1, {{"T", kI}}), {Ints({2, 0, 3, 1})}, 0, 0);
  RawRun r = RunRaw(Node("BroadcastGradientArgs", 2, {{"T", kI}}), {Ints({2, 3}), Ints({3})});
  CHECK(InHostMemory(r.outputs[0]));
  CHECK(InHostMemory(r.outputs[1]));
  ExpectSameError(Node("InvertPermutation", 1, {{"T", kI}}), {Ints({0, 0})}, "appears twice");
  ExpectSameError(Node("BroadcastGradientArgs", 2, {{"T", kI}}), {Ints({2, 3}), Ints({4})},
                  "incompatible");
  ExpectSameError(Node("ConcatOffset", 3, {{"N", int64_t{2}}}),
                  {IntScalar(1), Ints({2, 3}), Ints({3, 3})}, "does not match shape 0");
}

TEST_CASE("GPU int32 shape arithmetic and int Slice ConcatV2 Transpose run on the host",
          "[gpu][array]") {
  for (const char* op : {"Add", "Sub", "Mul", "Greater", "GreaterEqual", "Less", "LessEqual"}) {
    INFO(op);
    NodeDef n = Node(op, 2, {{"T", kI}});
    ExpectGpuMatchesCpu(n, {Ints({3, -1, 4}), Ints({2, 7, 4})}, 0, 0);
    RawRun r = RunRaw(n, {Ints({1, 2}), IntScalar(2)});
    CHECK(InHostMemory(r.outputs[0]));
  }
  ExpectGpuMatchesCpu(Node("Slice", 3, {{"T", kI}, {"Index", kI}}),
                      {Ints({5, 6, 7, 8}), Ints({1}), Ints({2})}, 0, 0);
  ExpectGpuMatchesCpu(Node("ConcatV2", 3, {{"T", kI}, {"N", int64_t{2}}, {"Tidx", kI}}),
                      {Ints({1, 2}), Ints({3}), IntScalar(0)}, 0, 0);
  ExpectGpuMatchesCpu(Node("Transpose", 2, {{"T", kI}}),
                      {Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}), Ints({1, 0})}, 0,
                      0);
}

TEST_CASE("GPU Slice Pad Transpose and Tile copy like the CPU", "[gpu][array]") {
  for (DataType dt : {kF, kD}) {
    INFO(DataTypeString(dt));
    Tensor x = Random(dt, {4, 5, 6});
    ExpectGpuMatchesCpu(Node("Slice", 3, {{"T", dt}, {"Index", kI}}),
                        {x, Ints({1, 0, 2}), Ints({2, -1, 3})}, 0, 0);
    ExpectGpuMatchesCpu(Node("Slice", 3, {{"T", dt}, {"Index", kI}}),
                        {x, Ints({0, 0, 0}), Ints({4, 5, 6})}, 0, 0);
    ExpectGpuMatchesCpu(Node("Pad", 2, {{"T", dt}}),
                        {x, Tensor::FromVector<int32_t>({1, 0, 0, 2, 3, 1}, {3, 2})}, 0, 0);
    for (const auto& perm : std::vector<std::vector<int32_t>>{{2, 0, 1}, {1, 0, 2}, {0, 1, 2}})
      ExpectGpuMatchesCpu(Node("Transpose", 2, {{"T", dt}}), {x, Ints(perm)}, 0, 0);
    ExpectGpuMatchesCpu(Node("Tile", 2, {{"T", dt}}), {x, Ints({2, 1, 3})}, 0, 0);
    ExpectGpuMatchesCpu(Node("Tile", 2, {{"T", dt}}), {x, Ints({1, 0, 1})}, 0, 0);
  }
  Tensor x = Random(kF, {4, 5});
  ExpectSameError(Node("Slice", 3, {{"T", kF}, {"Index", kI}}), {x, Ints({3, 0}), Ints({2, 5})},
                  "exceeds dimension 0");
  ExpectSameError(Node("Pad", 2, {{"T", kF}}),
                  {x, Tensor::FromVector<int32_t>({-1, 0, 0, 0}, {2, 2})}, "must be >= 0");
  ExpectSameError(Node("Transpose", 2, {{"T", kF}}), {x, Ints({0, 0})}, "is not a permutation");
  ExpectSameError(Node("Tile", 2, {{"T", kF}}), {x, Ints({2})}, "multiples");
}

TEST_CASE("GPU Concat Pack Split and Unpack copy like the CPU", "[gpu][array]") {
  for (DataType dt : {kF, kD}) {
    INFO(DataTypeString(dt));
    Tensor a = Random(dt, {3, 2, 4}, -1, 1, 1), b = Random(dt, {3, 5, 4}, -1, 1, 2);
    ExpectGpuMatchesCpu(Node("ConcatV2", 3, {{"T", dt}, {"N", int64_t{2}}}), {a, b, IntScalar(1)},
                        0, 0);
    ExpectGpuMatchesCpu(Node("Concat", 3, {{"T", dt}, {"N", int64_t{2}}}), {IntScalar(-2), a, b},
                        0, 0);
    ExpectGpuMatchesCpu(Node("ConcatV2", 3, {{"T", dt}, {"N", int64_t{2}}}), {a, a, IntScalar(0)},
                        0, 0);
    for (int64_t axis : {0, 1, -1})
      ExpectGpuMatchesCpu(Node("Pack", 3, {{"T", dt}, {"N", int64_t{3}}, {"axis", axis}}),
                          {a, Random(dt, {3, 2, 4}, -1, 1, 3), a}, 0, 0);
    Tensor v = Random(dt, {4, 6, 2});
    for (int32_t axis : {0, 1, 2})
      ExpectGpuMatchesCpu(Node("Split", 2, {{"T", dt}, {"num_split", int64_t{2}}}),
                          {IntScalar(axis), v}, 0, 0);
    for (int64_t axis : {0, 1, -1})
      ExpectGpuMatchesCpu(Node("Unpack", 1, {{"T", dt}, {"num", v.dim_size(axis < 0 ? 2 : axis)},
                                             {"axis", axis}}),
                          {v}, 0, 0);
  }
  Tensor a = Random(kF, {3, 2}), b = Random(kF, {4, 3});
  ExpectSameError(Node("ConcatV2", 3, {{"T", kF}, {"N", int64_t{2}}}), {a, b, IntScalar(1)},
                  "but input 0 has shape");
  ExpectSameError(Node("Split", 2, {{"T", kF}, {"num_split", int64_t{2}}}), {IntScalar(1), b},
                  "not divisible by num_split 2");
  ExpectSameError(Node("Pack", 2, {{"T", kF}, {"N", int64_t{2}}}), {a, b}, "but input 0 has shape");
}

TEST_CASE("A Session feeds CPU shape tensors to HostMemory inputs on the GPU", "[gpu][array]") {
  // The shape comes from the CPU: its _Recv on the GPU keeps it on the host (_host_memory), and
  // Shape -> Reshape stay on the host within the GPU partition.
  GraphDef g = fb::test::ParseGraph(R"({"nodes": [
    {"name": "x", "op": "Placeholder", "attrs": {"dtype": {"type": "float"}}},
    {"name": "shape", "op": "Placeholder", "device": "/device:CPU:0",
     "attrs": {"dtype": {"type": "int32"}}},
    {"name": "r", "op": "Reshape", "inputs": ["x", "shape"], "device": "/device:GPU:0",
     "attrs": {"T": {"type": "float"}}},
    {"name": "perm", "op": "Const", "device": "/device:CPU:0",
     "attrs": {"dtype": {"type": "int32"}, "value": {"tensor": {"dtype": "int32", "shape": [2],
               "values": [1, 0]}}}},
    {"name": "t", "op": "Transpose", "inputs": ["r", "perm"], "device": "/device:GPU:0",
     "attrs": {"T": {"type": "float"}}},
    {"name": "s", "op": "Shape", "inputs": ["t"], "device": "/device:GPU:0",
     "attrs": {"T": {"type": "float"}}},
    {"name": "back", "op": "Reshape", "inputs": ["t", "s"], "device": "/device:GPU:0",
     "attrs": {"T": {"type": "float"}}}]})");
  auto session = fb::test::MakeSession(g);
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, {6});
  auto out = fb::test::RunOk(session.get(), {{"x", x}, {"shape", Ints({2, 3})}},
                             {"t", "s", "back"});
  CHECK(fb::test::Values<float>(out[0]) == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK(fb::test::Values<int32_t>(out[1]) == std::vector<int32_t>{3, 2});
  CHECK(out[2].shape() == TensorShape{3, 2});
  // A bad shape fails naming the node.
  std::vector<Tensor> bad;
  Status s = session->Run({{"x", x}, {"shape", Ints({4, 4})}}, {"t"}, {}, &bad);
  CHECK_THAT(s.message(), Catch::Contains("Reshape 'r'"));
}

}  // namespace
}  // namespace fb::gpu
