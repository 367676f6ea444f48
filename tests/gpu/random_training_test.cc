// GPU random ops (Philox: the same stream as the CPU kernels for the same seeds), the optimizer
// apply ops on GPU-resident variables, CheckNumerics and a single-GPU NCCL allreduce.
// Tolerances: uniform bit-exact; normal and truncated normal 1e-5 (device sin/cos/log);
// optimizer updates 1e-6.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;

TEST_CASE("GPU random ops produce the CPU's Philox streams", "[gpu][random]") {
  Tensor shape = Tensor::FromVector<int32_t>({37, 11});
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"})
    for (DataType dt : {DataType::kFloat, DataType::kDouble}) {
      INFO(op << " " << DataTypeString(dt));
      NodeDef n = Node(op, 1, {{"dtype", dt}, {"T", DataType::kInt32}, {"seed", int64_t{7}},
                               {"seed2", int64_t{3}}});
      auto cpu = test::Run(test::Cpu(), n, {shape});
      auto gpu = test::Run(test::Gpu(), n, {shape});
      const bool exact = std::string(op) == "RandomUniform";
      fb::test::ExpectClose(gpu[0], cpu[0], exact ? 0 : 1e-5, exact ? 0 : 1e-5);
    }
}

// Runs an apply op on CPU-resident and GPU-resident copies of the same variables.
void ExpectApplyMatches(const std::string& op, int num_refs, const std::vector<Tensor>& inputs,
                        AttrMap attrs) {
  std::vector<std::shared_ptr<Var>> cpu_vars, gpu_vars;
  std::vector<Var*> cpu_refs, gpu_refs;
  // The variables have the gradient's shape: the one input that is not a scalar.
  TensorShape var_shape;
  for (const Tensor& t : inputs)
    if (t.shape().dims() > 0) var_shape = t.shape();
  for (int i = 0; i < num_refs; ++i) {
    Tensor init = Random(kF, var_shape, 0.1, 1, 20 + i);
    cpu_vars.push_back(std::make_shared<Var>());
    gpu_vars.push_back(std::make_shared<Var>());
    *cpu_vars.back()->tensor() = init;
    *gpu_vars.back()->tensor() = *test::Gpu()->CopyFromHost(init);
    cpu_refs.push_back(cpu_vars.back().get());
    gpu_refs.push_back(gpu_vars.back().get());
  }
  NodeDef n = Node(op, num_refs + static_cast<int>(inputs.size()), attrs);
  test::Run(test::Cpu(), n, inputs, cpu_refs);
  test::Run(test::Gpu(), n, inputs, gpu_refs);
  for (int i = 0; i < num_refs; ++i) {
    INFO(op << " variable " << i);
    fb::test::ExpectClose(*test::Gpu()->CopyToHost(*gpu_vars[i]->tensor()),
                          *cpu_vars[i]->tensor(), 1e-6, 1e-6);
  }
}

TEST_CASE("GPU optimizer apply ops update GPU variables like the CPU", "[gpu][training]") {
  Tensor grad = Random(kF, {5, 7}, -1, 1, 30);
  auto s = [](float v) { return Tensor::Scalar<float>(v); };
  ExpectApplyMatches("ApplyGradientDescent", 1, {s(0.1f), grad}, {{"T", kF}});
  for (bool nesterov : {false, true}) {
    ExpectApplyMatches("ApplyMomentum", 2, {s(0.1f), grad, s(0.9f)},
                       {{"T", kF}, {"use_nesterov", nesterov}});
    ExpectApplyMatches("ApplyAdam", 3,
                       {s(0.9f), s(0.999f), s(0.01f), s(0.9f), s(0.999f), s(1e-8f), grad},
                       {{"T", kF}, {"use_nesterov", nesterov}});
  }
}

TEST_CASE("GPU CheckNumerics forwards finite tensors and names NaN and Inf", "[gpu][debug]") {
  NodeDef n = Node("CheckNumerics", 1, {{"T", kF}, {"message", std::string("logits")}});
  Tensor ok = Random(kF, {1000});
  CHECK(TensorsEqual(test::Run(test::Gpu(), n, {ok})[0], ok));
  Tensor bad = ok.DeepCopy();
  bad.data<float>()[500] = std::nanf("");
  auto out = test::TryRun(test::Gpu(), n, {bad});
  CHECK_THAT(out.status().message(), Catch::Contains("logits : Tensor had NaN values"));
  bad.data<float>()[7] = INFINITY;
  CHECK_THAT(test::TryRun(test::Gpu(), n, {bad}).status().message(),
             Catch::Contains("Tensor had Inf and NaN values"));
}

TEST_CASE("NcclAllReduce over one GPU returns its input", "[gpu][nccl]") {
  NodeDef n = Node("NcclAllReduce", 1, {{"T", kF}, {"reduction", std::string("sum")},
                                         {"num_devices", int64_t{1}},
                                         {"shared_name", std::string("grads")}});
  Tensor x = Random(kF, {4096});
  CHECK(TensorsEqual(test::Run(test::Gpu(), n, {x})[0], x));
  NodeDef bad = n;
  bad.attrs["reduction"] = std::string("mean");
  CHECK_THAT(test::TryRun(test::Gpu(), bad, {x}).status().message(),
             Catch::Contains("reduction must be sum, prod, max or min, got 'mean'"));
}

}  // namespace
}  // namespace fb::gpu
