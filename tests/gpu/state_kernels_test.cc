// GPU kernels of the training graphs' state, constant, cast, metric and loss ops against the CPU
// kernels: Variable, Assign, AssignAdd, AssignSub, Const, StopGradient, Fill, ZerosLike,
// OnesLike, AddN, Cast, ArgMax, integer Equal, SparseSoftmaxCrossEntropyWithLogits;
// bad inputs give the CPU kernels' messages; and a Session runs a small training step (init,
// loss, accuracy, update, step counter) on the GPU with the CPU's results.
// Tolerances: exact for integers, bools, copies and fills; 1e-5 for the loss (device exp/log).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/cuda/state_util.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::Node;

constexpr DataType kF = DataType::kFloat;
constexpr DataType kD = DataType::kDouble;
constexpr DataType kI32 = DataType::kInt32;
constexpr DataType kI64 = DataType::kInt64;
constexpr DataType kB = DataType::kBool;

// Random values of any of the five training dtypes: reals in [-3, 3), integers in [-5, 5],
// bools 50/50.
Tensor Values(DataType dt, const TensorShape& shape, unsigned seed = 1) {
  if (dt == kF || dt == kD) return test::Random(dt, shape, -3, 3, seed);
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> u(-5, 5);
  Tensor t(dt, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const int v = u(gen);
    if (dt == kI32) t.data<int32_t>()[i] = v;
    else if (dt == kI64) t.data<int64_t>()[i] = v;
    else t.data<bool>()[i] = v > 0;
  }
  return t;
}

// gpu == cpu: reals within atol + rtol * |cpu| (NaN matches NaN), everything else bit for bit.
void ExpectSame(const Tensor& gpu, const Tensor& cpu, double rtol = 0, double atol = 0) {
  REQUIRE(gpu.dtype() == cpu.dtype());
  REQUIRE(gpu.shape() == cpu.shape());
  if (cpu.dtype() != kF && cpu.dtype() != kD) {
    CHECK(TensorsEqual(gpu, cpu));
    return;
  }
  for (int64_t i = 0; i < cpu.NumElements(); ++i) {
    const double g = cpu.dtype() == kF ? gpu.data<float>()[i] : gpu.data<double>()[i];
    const double c = cpu.dtype() == kF ? cpu.data<float>()[i] : cpu.data<double>()[i];
    INFO("element " << i << ": gpu " << g << ", cpu " << c);
    if (std::isnan(c)) CHECK(std::isnan(g));
    else CHECK(std::abs(g - c) <= atol + rtol * std::abs(c));
  }
}

// Runs `node` on both devices; every output must agree (ExpectSame).
void ExpectBothAgree(const NodeDef& node, const std::vector<Tensor>& inputs, double rtol = 0,
                     double atol = 0) {
  auto cpu = test::Run(test::Cpu(), node, inputs);
  auto gpu = test::Run(test::Gpu(), node, inputs);
  REQUIRE(cpu.size() == gpu.size());
  for (size_t i = 0; i < cpu.size(); ++i) {
    INFO(node.op << " output " << i);
    ExpectSame(gpu[i], cpu[i], rtol, atol);
  }
}

// A Var holding `value` on `device` (GPU memory for the GPU).
std::shared_ptr<Var> VarOn(Device* device, const Tensor& value) {
  auto v = std::make_shared<Var>();
  auto on_device = device->CopyFromHost(value);
  REQUIRE(on_device.ok());
  *v->tensor() = *on_device;
  return v;
}

Tensor HostValue(const std::shared_ptr<Var>& v) {
  auto t = test::Gpu()->CopyToHost(*v->tensor());
  REQUIRE(t.ok());
  return *t;
}

TEST_CASE("GPU Assign puts the value in GPU memory and checks its shape", "[gpu][state]") {
  Tensor value = Values(kF, {4, 3}, 2);
  auto var = std::make_shared<Var>();
  var->set_declared_shape(TensorShape{4, 3});
  NodeDef assign = Node("Assign", 2, {{"T", kF}});
  test::Run(test::Gpu(), assign, {value}, {var.get()});
  CHECK(IsGpuMemory(*var->tensor()));
  CHECK(TensorsEqual(HostValue(var), value));

  // Reassigning a value of another shape fails as on the CPU, and leaves the variable alone.
  auto bad = test::TryRun(test::Gpu(), assign, {Values(kF, {3, 4})}, {var.get()});
  REQUIRE(!bad.ok());
  CHECK(bad.status().code() == Code::kInvalidArgument);
  CHECK_THAT(bad.status().message(),
             Catch::Contains("cannot assign a value of shape [3,4] to a variable of shape [4,3]"));
  CHECK(TensorsEqual(HostValue(var), value));
  // ... unless validate_shape is false.
  NodeDef reshape = Node("Assign", 2, {{"T", kF}, {"validate_shape", false}});
  Tensor other = Values(kF, {3, 4}, 3);
  test::Run(test::Gpu(), reshape, {other}, {var.get()});
  CHECK(TensorsEqual(HostValue(var), other));
  // The declared shape is checked before the first assignment.
  auto fresh = std::make_shared<Var>();
  fresh->set_declared_shape(TensorShape{2, -1});
  auto first = test::TryRun(test::Gpu(), assign, {Values(kF, {3, 2})}, {fresh.get()});
  REQUIRE(!first.ok());
  CHECK_THAT(first.status().message(), Catch::Contains("to a variable of shape [2,?]"));
}

TEST_CASE("GPU AssignAdd and AssignSub update GPU variables like the CPU", "[gpu][state]") {
  for (const char* op : {"AssignAdd", "AssignSub"})
    for (DataType dt : {kF, kD, kI32, kI64}) {
      INFO(op << " " << DataTypeString(dt));
      Tensor init = Values(dt, {37, 5}, 4), delta = Values(dt, {37, 5}, 5);
      auto cpu = VarOn(test::Cpu(), init), gpu = VarOn(test::Gpu(), init);
      NodeDef n = Node(op, 2, {{"T", dt}});
      test::Run(test::Cpu(), n, {delta}, {cpu.get()});
      test::Run(test::Gpu(), n, {delta}, {gpu.get()});
      ExpectSame(HostValue(gpu), *cpu->tensor());
    }
  // A snapshot taken before the update keeps its values (the buffer is copied first).
  auto var = VarOn(test::Gpu(), Values(kF, {8}, 6));
  Tensor snapshot = *var->tensor();
  Tensor before = *test::Gpu()->CopyToHost(snapshot);
  test::Run(test::Gpu(), Node("AssignAdd", 2, {{"T", kF}}), {Values(kF, {8}, 7)}, {var.get()});
  CHECK(TensorsEqual(*test::Gpu()->CopyToHost(snapshot), before));
  CHECK(!TensorsEqual(HostValue(var), before));
}

TEST_CASE("GPU AssignAdd rejects a shape mismatch and an uninitialized variable", "[gpu][state]") {
  NodeDef n = Node("AssignAdd", 2, {{"T", kF}});
  auto var = VarOn(test::Gpu(), Values(kF, {2, 3}));
  auto bad = test::TryRun(test::Gpu(), n, {Values(kF, {3, 2})}, {var.get()});
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.status().message(),
             Catch::Contains("variable has shape [2,3], update has shape [3,2]"));
  auto empty = std::make_shared<Var>();
  auto uninit = test::TryRun(test::Gpu(), Node("AssignSub", 2, {{"T", kF}}),
                             {Values(kF, {2})}, {empty.get()});
  REQUIRE(!uninit.ok());
  CHECK(uninit.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(uninit.status().message(), Catch::Contains("uninitialized variable"));
}

TEST_CASE("GPU Const keeps int32 values in host memory and others in GPU memory",
          "[gpu][state]") {
  for (DataType dt : {kF, kD, kI32, kI64, kB}) {
    INFO(DataTypeString(dt));
    Tensor value = Values(dt, {3, 7}, 8);
    NodeDef n = Node("Const", 0, {{"value", value}, {"dtype", dt}});
    auto kernel = KernelRegistry::Global()->CreateKernel(test::Gpu(), n);
    REQUIRE(kernel.ok());
    std::vector<TensorValue> no_inputs;
    OpKernelContext::Params params;
    params.device = test::Gpu();
    params.kernel = kernel->get();
    params.inputs = &no_inputs;
    OpKernelContext ctx(&params);
    test::Gpu()->Compute(kernel->get(), &ctx);
    REQUIRE(ctx.status().ok());
    const Tensor& out = ctx.output_value(0).tensor;
    CHECK(IsGpuMemory(out) == (dt != kI32));
    CHECK(TensorsEqual(*test::Gpu()->CopyToHost(out), value));
  }
  // A mismatched dtype fails when the kernel is built.
  NodeDef bad = Node("Const", 0, {{"value", Values(kF, {2})}, {"dtype", kD}});
  auto kernel = KernelRegistry::Global()->CreateKernel(test::Gpu(), bad);
  REQUIRE(!kernel.ok());
  CHECK_THAT(kernel.status().message(), Catch::Contains("value is float but dtype is double"));
}

TEST_CASE("GPU Fill, ZerosLike, OnesLike and StopGradient match the CPU", "[gpu][fill]") {
  for (DataType dt : {kF, kD, kI32, kI64, kB}) {
    INFO(DataTypeString(dt));
    Tensor x = Values(dt, {5, 301}, 9);
    ExpectBothAgree(Node("ZerosLike", 1, {{"T", dt}}), {x});
    ExpectBothAgree(Node("OnesLike", 1, {{"T", dt}}), {x});
    ExpectBothAgree(Node("StopGradient", 1, {{"T", dt}}), {x});
    Tensor value = Values(dt, {}, 10);
    ExpectBothAgree(Node("Fill", 2, {{"T", dt}, {"index_type", kI32}}),
                    {Tensor::FromVector<int32_t>({3, 0, 2}), value});
    ExpectBothAgree(Node("Fill", 2, {{"T", dt}, {"index_type", kI64}}),
                    {Tensor::FromVector<int64_t>({1000, 257}), value});
  }
}

TEST_CASE("GPU Fill rejects bad dims and a non-scalar value as the CPU does", "[gpu][fill]") {
  NodeDef n = Node("Fill", 2, {{"T", kF}, {"index_type", kI32}});
  auto matrix = test::TryRun(test::Gpu(), n, {Tensor::FromVector<int32_t>({2, 2}, {1, 2}),
                                               Tensor::Scalar<float>(1)});
  REQUIRE(!matrix.ok());
  CHECK_THAT(matrix.status().message(), Catch::Contains("dims must be a vector, got shape [1,2]"));
  auto vector_value = test::TryRun(test::Gpu(), n, {Tensor::FromVector<int32_t>({2}),
                                                     Tensor::FromVector<float>({1, 2})});
  REQUIRE(!vector_value.ok());
  CHECK_THAT(vector_value.status().message(),
             Catch::Contains("value must be a scalar, got shape [2]"));
  Tensor negative = Tensor::FromVector<int32_t>({2, -3});
  auto cpu = test::TryRun(test::Cpu(), n, {negative, Tensor::Scalar<float>(1)});
  auto gpu = test::TryRun(test::Gpu(), n, {negative, Tensor::Scalar<float>(1)});
  REQUIRE(!cpu.ok());
  REQUIRE(!gpu.ok());
  CHECK(gpu.status().message() == cpu.status().message());
}

TEST_CASE("GPU AddN sums any number of inputs like the CPU", "[gpu][addn]") {
  for (DataType dt : {kF, kD, kI32, kI64})
    for (int n : {1, 2, 3, 8, 9, 20}) {
      INFO(DataTypeString(dt) << " N=" << n);
      std::vector<Tensor> inputs;
      for (int i = 0; i < n; ++i) inputs.push_back(Values(dt, {17, 33}, 11 + i));
      ExpectBothAgree(Node("AddN", n, {{"T", dt}, {"N", int64_t{n}}}), inputs, 1e-6, 1e-6);
    }
  NodeDef n = Node("AddN", 2, {{"T", kF}, {"N", int64_t{2}}});
  auto bad = test::TryRun(test::Gpu(), n, {Values(kF, {2, 3}), Values(kF, {3, 2})});
  REQUIRE(!bad.ok());
  CHECK_THAT(bad.status().message(),
             Catch::Contains("inputs must have equal shapes: input 0 is [2,3], input 1 is [3,2]"));
}

TEST_CASE("GPU Cast converts between float, double, int32, int64 and bool like the CPU",
          "[gpu][cast]") {
  for (DataType src : {kF, kD, kI32, kI64, kB})
    for (DataType dst : {kF, kD, kI32, kI64, kB}) {
      INFO(DataTypeString(src) << " -> " << DataTypeString(dst));
      Tensor x = Values(src, {3, 129}, 12);
      if (src == kF) x.data<float>()[0] = 0;  // a zero for the bool conversion
      ExpectBothAgree(Node("Cast", 1, {{"SrcT", src}, {"DstT", dst}}), {x});
    }
}

TEST_CASE("GPU ArgMax matches the CPU on every axis, with ties and NaN", "[gpu][argmax]") {
  for (DataType dt : {kF, kD, kI32, kI64})
    for (DataType out : {kI32, kI64}) {
      INFO(DataTypeString(dt) << " -> " << DataTypeString(out));
      NodeDef n = Node("ArgMax", 2, {{"T", dt}, {"output_type", out}, {"Tidx", kI32}});
      Tensor wide = Values(dt, {7, 1000}, 13);  // integers in [-5, 5]: many ties
      for (int axis : {0, 1, -1})
        ExpectBothAgree(n, {wide, Tensor::Scalar<int32_t>(axis)});
      Tensor cube = Values(dt, {5, 4, 3}, 14);
      for (int axis : {0, 1, 2}) ExpectBothAgree(n, {cube, Tensor::Scalar<int32_t>(axis)});
    }
  // NaN wins, the first one; in a column too.
  Tensor nan = Values(kF, {4, 600}, 15);
  nan.data<float>()[1 * 600 + 333] = std::nanf("");
  nan.data<float>()[1 * 600 + 500] = std::nanf("");
  nan.data<float>()[3 * 600 + 599] = std::nanf("");
  nan.data<float>()[2 * 600 + 7] = std::numeric_limits<float>::infinity();
  NodeDef n = Node("ArgMax", 2, {{"T", kF}, {"output_type", kI64}, {"Tidx", kI32}});
  auto gpu = test::Run(test::Gpu(), n, {nan, Tensor::Scalar<int32_t>(1)});
  CHECK(fb::test::Values<int64_t>(gpu[0])[1] == 333);
  CHECK(fb::test::Values<int64_t>(gpu[0])[2] == 7);
  CHECK(fb::test::Values<int64_t>(gpu[0])[3] == 599);
  ExpectBothAgree(n, {nan, Tensor::Scalar<int32_t>(1)});
  ExpectBothAgree(n, {nan, Tensor::Scalar<int32_t>(0)});
}

TEST_CASE("GPU ArgMax rejects bad dimensions as the CPU does", "[gpu][argmax]") {
  NodeDef n = Node("ArgMax", 2, {{"T", kF}, {"output_type", kI32}, {"Tidx", kI32}});
  for (const auto& [x, dim] : std::vector<std::pair<Tensor, Tensor>>{
           {Values(kF, {2, 3}), Tensor::Scalar<int32_t>(2)},
           {Values(kF, {2, 3}), Tensor::FromVector<int32_t>({1})},
           {Values(kF, {2, 0}), Tensor::Scalar<int32_t>(1)},
           {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(0)}}) {
    auto cpu = test::TryRun(test::Cpu(), n, {x, dim});
    auto gpu = test::TryRun(test::Gpu(), n, {x, dim});
    REQUIRE(!cpu.ok());
    REQUIRE(!gpu.ok());
    CHECK(gpu.status().message() == cpu.status().message());
  }
}

TEST_CASE("GPU integer Equal broadcasts like the CPU", "[gpu][cwise]") {
  for (DataType dt : {kI32, kI64}) {
    INFO(DataTypeString(dt));
    NodeDef n = Node("Equal", 2, {{"T", dt}});
    ExpectBothAgree(n, {Values(dt, {64, 9}, 16), Values(dt, {64, 9}, 17)});
    ExpectBothAgree(n, {Values(dt, {64, 9}, 16), Values(dt, {9}, 18)});
    ExpectBothAgree(n, {Values(dt, {}, 19), Values(dt, {3, 1, 5}, 20)});
  }
}

// Labels in [0, classes) of `dt`, deterministic per seed.
Tensor Labels(DataType dt, int64_t batch, int64_t classes, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int64_t> u(0, classes - 1);
  Tensor t(dt, {batch});
  for (int64_t i = 0; i < batch; ++i) {
    if (dt == kI32) t.data<int32_t>()[i] = static_cast<int32_t>(u(gen));
    else t.data<int64_t>()[i] = u(gen);
  }
  return t;
}

TEST_CASE("GPU SparseSoftmaxCrossEntropyWithLogits matches the CPU", "[gpu][loss]") {
  for (DataType dt : {kF, kD})
    for (DataType index : {kI32, kI64}) {
      INFO(DataTypeString(dt) << " labels " << DataTypeString(index));
      NodeDef n = Node("SparseSoftmaxCrossEntropyWithLogits", 2, {{"T", dt}, {"Tlabels", index}});
      ExpectBothAgree(n, {test::Random(dt, {33, 10}, -5, 5, 21), Labels(index, 33, 10, 22)},
                      1e-5, 1e-6);
      ExpectBothAgree(n, {test::Random(dt, {3, 1000}, -20, 20, 23), Labels(index, 3, 1000, 24)},
                      1e-5, 1e-6);
      ExpectBothAgree(n, {test::Random(dt, {0, 10}), Labels(index, 0, 10, 25)});
    }
}

TEST_CASE("GPU SparseSoftmaxCrossEntropyWithLogits names a label out of range as the CPU does",
          "[gpu][loss]") {
  for (DataType index : {kI32, kI64}) {
    NodeDef n = Node("SparseSoftmaxCrossEntropyWithLogits", 2, {{"T", kF}, {"Tlabels", index}});
    Tensor features = test::Random(kF, {6, 10}, -1, 1, 26);
    for (int64_t bad_label : {10, -1, 1000000}) {
      Tensor labels = Labels(index, 6, 10, 27);
      for (int64_t row : {4, 3}) {  // two bad rows: the first is named
        if (index == kI32) labels.data<int32_t>()[row] = static_cast<int32_t>(bad_label);
        else labels.data<int64_t>()[row] = bad_label;
      }
      auto cpu = test::TryRun(test::Cpu(), n, {features, labels});
      auto gpu = test::TryRun(test::Gpu(), n, {features, labels});
      REQUIRE(!cpu.ok());
      REQUIRE(!gpu.ok());
      CHECK(gpu.status().code() == Code::kInvalidArgument);
      CHECK(gpu.status().message() == cpu.status().message());
      CHECK_THAT(gpu.status().message(),
                 Catch::Contains("received a label value of " + std::to_string(bad_label) +
                                 " at index 3, outside the valid range of [0, 10)"));
    }
  }
  NodeDef n = Node("SparseSoftmaxCrossEntropyWithLogits", 2, {{"T", kF}, {"Tlabels", kI32}});
  auto shape = test::TryRun(test::Gpu(), n, {test::Random(kF, {6, 10}), Labels(kI32, 5, 10, 1)});
  REQUIRE(!shape.ok());
  CHECK_THAT(shape.status().message(),
             Catch::Contains("labels must have shape [batch] = [6] to match features [6,10], "
                             "got shape [5]"));
  // The device still works afterwards.
  ExpectBothAgree(n, {test::Random(kF, {6, 10}), Labels(kI32, 6, 10, 2)}, 1e-5, 1e-6);
}


// A training step of softmax regression with every node but the Placeholders on `device`:
// init (Assign), loss and accuracy (SparseSoftmaxCrossEntropyWithLogits, ArgMax, Equal, Cast,
// Mean), the update (ZerosLike, AddN, ApplyGradientDescent) and the step counter (AssignAdd).
// DEV stands for the device.
constexpr char kTrainingStepJson[] = R"({"nodes": [
    {"name": "x", "op": "Placeholder", "device": "/device:CPU:0",
     "attrs": {"dtype": {"type": "float"}, "shape": {"shape": [4, 3]}}},
    {"name": "labels", "op": "Placeholder", "device": "/device:CPU:0",
     "attrs": {"dtype": {"type": "int32"}, "shape": {"shape": [4]}}},
    {"name": "w", "op": "Variable", "device": "DEV",
     "attrs": {"dtype": {"type": "float"}, "shape": {"shape": [3, 5]}}},
    {"name": "w0", "op": "Const", "device": "DEV", "attrs": {"dtype": {"type": "float"},
     "value": {"tensor": {"dtype": "float", "shape": [3, 5],
               "values": [0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9, 1.0,
                          -1.1, 1.2, 0.3, -0.4, 0.5]}}}},
    {"name": "w_init", "op": "Assign", "inputs": ["w", "w0"], "device": "DEV",
     "attrs": {"T": {"type": "float"}}},
    {"name": "step", "op": "Variable", "device": "DEV",
     "attrs": {"dtype": {"type": "int64"}, "shape": {"shape": []}}},
    {"name": "zero64", "op": "Const", "device": "DEV", "attrs": {"dtype": {"type": "int64"},
     "value": {"tensor": {"dtype": "int64", "shape": [], "values": [0]}}}},
    {"name": "step_init", "op": "Assign", "inputs": ["step", "zero64"], "device": "DEV",
     "attrs": {"T": {"type": "int64"}}},
    {"name": "one64", "op": "Const", "device": "DEV", "attrs": {"dtype": {"type": "int64"},
     "value": {"tensor": {"dtype": "int64", "shape": [], "values": [1]}}}},
    {"name": "step_inc", "op": "AssignAdd", "inputs": ["step", "one64"], "device": "DEV",
     "attrs": {"T": {"type": "int64"}}},
    {"name": "logits", "op": "MatMul", "inputs": ["x", "w"], "device": "DEV",
     "attrs": {"T": {"type": "float"}}},
    {"name": "xent", "op": "SparseSoftmaxCrossEntropyWithLogits", "inputs": ["logits", "labels"],
     "device": "DEV", "attrs": {"T": {"type": "float"}, "Tlabels": {"type": "int32"}}},
    {"name": "axis0", "op": "Const", "device": "DEV", "attrs": {"dtype": {"type": "int32"},
     "value": {"tensor": {"dtype": "int32", "shape": [1], "values": [0]}}}},
    {"name": "loss", "op": "Mean", "inputs": ["xent:0", "axis0"], "device": "DEV",
     "attrs": {"T": {"type": "float"}}},
    {"name": "one32", "op": "Const", "device": "DEV", "attrs": {"dtype": {"type": "int32"},
     "value": {"tensor": {"dtype": "int32", "shape": [], "values": [1]}}}},
    {"name": "pred", "op": "ArgMax", "inputs": ["logits", "one32"], "device": "DEV",
     "attrs": {"T": {"type": "float"}, "output_type": {"type": "int32"}}},
    {"name": "correct", "op": "Equal", "inputs": ["pred", "labels"], "device": "DEV",
     "attrs": {"T": {"type": "int32"}}},
    {"name": "correct_f", "op": "Cast", "inputs": ["correct"], "device": "DEV",
     "attrs": {"SrcT": {"type": "bool"}, "DstT": {"type": "float"}}},
    {"name": "accuracy", "op": "Mean", "inputs": ["correct_f", "axis0"], "device": "DEV",
     "attrs": {"T": {"type": "float"}}},
    {"name": "grad", "op": "MatMul", "inputs": ["x", "xent:1"], "device": "DEV",
     "attrs": {"T": {"type": "float"}, "transpose_a": {"b": true}}},
    {"name": "zeros", "op": "ZerosLike", "inputs": ["grad"], "device": "DEV",
     "attrs": {"T": {"type": "float"}}},
    {"name": "grad_sum", "op": "AddN", "inputs": ["grad", "zeros"], "device": "DEV",
     "attrs": {"T": {"type": "float"}, "N": {"i": 2}}},
    {"name": "lr", "op": "Const", "device": "DEV", "attrs": {"dtype": {"type": "float"},
     "value": {"tensor": {"dtype": "float", "shape": [], "values": [0.5]}}}},
    {"name": "update", "op": "ApplyGradientDescent", "inputs": ["w", "lr", "grad_sum"],
     "device": "DEV", "attrs": {"T": {"type": "float"}}},
    {"name": "w_out", "op": "Identity", "inputs": ["w"], "device": "DEV",
     "attrs": {"T": {"type": "float"}}},
    {"name": "step_out", "op": "Identity", "inputs": ["step"], "device": "DEV",
     "attrs": {"T": {"type": "int64"}}}]})";

GraphDef TrainingStep(const std::string& device) {
  std::string json = kTrainingStepJson;
  for (size_t at = json.find("DEV"); at != std::string::npos; at = json.find("DEV", at))
    json.replace(at, 3, device);
  return fb::test::ParseGraph(json);
}

// Fetches of init, one step, and the state after it.
std::vector<Tensor> RunTrainingStep(Session* s, const Tensor& x, const Tensor& labels) {
  fb::test::RunOk(s, {}, {}, {"w_init", "step_init"});
  auto first = fb::test::RunOk(s, {{"x", x}, {"labels", labels}}, {"loss", "accuracy"},
                               {"update", "step_inc"});
  auto after = fb::test::RunOk(s, {{"x", x}, {"labels", labels}},
                               {"w_out", "step_out", "loss", "accuracy"});
  first.insert(first.end(), after.begin(), after.end());
  return first;
}

TEST_CASE("A training step with state, loss and metrics on the GPU gives the CPU's results",
          "[gpu][state][loss]") {
  Tensor x = test::Random(kF, {4, 3}, -1, 1, 30);
  Tensor labels = Tensor::FromVector<int32_t>({0, 4, 2, 2});
  auto cpu = fb::test::MakeSession(TrainingStep("/device:CPU:0"));
  auto gpu = fb::test::MakeSession(TrainingStep("/device:GPU:0"));
  std::vector<Tensor> want = RunTrainingStep(cpu.get(), x, labels);
  std::vector<Tensor> got = RunTrainingStep(gpu.get(), x, labels);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("fetch " << i);
    ExpectSame(got[i], want[i], 1e-5, 1e-6);
  }
  CHECK(fb::test::Values<int64_t>(got[3]) == std::vector<int64_t>{1});

  // A label out of range fails the step with the node's name and the CPU kernel's words.
  Tensor bad = Tensor::FromVector<int32_t>({0, 4, 5, 2});
  std::vector<Tensor> bad_out;
  Status st = gpu->Run({{"x", x}, {"labels", bad}}, {"loss"}, {}, &bad_out);
  REQUIRE(!st.ok());
  CHECK_THAT(st.message(), Catch::Contains("xent") &&
                               Catch::Contains("received a label value of 5 at index 2, "
                                               "outside the valid range of [0, 5)"));
  // The session still runs.
  auto again = fb::test::RunOk(gpu.get(), {{"x", x}, {"labels", labels}}, {"step_out"});
  CHECK(fb::test::Values<int64_t>(again[0]) == std::vector<int64_t>{1});
}

}  // namespace
}  // namespace fb::gpu
