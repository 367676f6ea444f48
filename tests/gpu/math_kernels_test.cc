// GPU MatMul/BatchMatMul (cuBLAS), element-wise ops with broadcasting, reductions, BiasAdd(Grad)
// and SoftmaxCrossEntropyWithLogits against the CPU kernels on random inputs. Tolerances: float
// products and sums rtol 1e-4 / atol 1e-5 (summation order differs; TF32 is off), element-wise
// float 1e-5 / 1e-6 (device exp/log/pow round differently in the last ulp), double 1e-12.
#include <catch2/catch.hpp>

#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;
constexpr DataType kD = DataType::kDouble;

TEST_CASE("GPU MatMul matches the CPU for every transpose combination", "[gpu][matmul]") {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      INFO("transpose_a " << ta << " transpose_b " << tb);
      NodeDef n = Node("MatMul", 2, {{"T", kF}, {"transpose_a", ta}, {"transpose_b", tb}});
      TensorShape a = ta ? TensorShape{65, 33} : TensorShape{33, 65};
      TensorShape b = tb ? TensorShape{17, 65} : TensorShape{65, 17};
      ExpectGpuMatchesCpu(n, {Random(kF, a, -1, 1, 1), Random(kF, b, -1, 1, 2)}, 1e-4, 1e-5);
    }
  ExpectGpuMatchesCpu(Node("MatMul", 2, {{"T", kD}}),
                      {Random(kD, {20, 30}), Random(kD, {30, 10}, -1, 1, 3)}, 1e-12, 1e-12);
}

TEST_CASE("GPU BatchMatMul matches the CPU", "[gpu][matmul]") {
  NodeDef n = Node("BatchMatMul", 2, {{"T", kF}, {"adj_x", false}, {"adj_y", true}});
  ExpectGpuMatchesCpu(n, {Random(kF, {2, 3, 8, 16}), Random(kF, {2, 3, 5, 16}, -1, 1, 4)}, 1e-4,
                      1e-5);
  auto bad = test::TryRun(test::Gpu(), n, {Random(kF, {2, 8, 16}), Random(kF, {3, 5, 16})});
  CHECK_THAT(bad.status().message(), Catch::Contains("equal batch dimensions"));
}

TEST_CASE("GPU unary element-wise ops match the CPU", "[gpu][cwise]") {
  for (const char* op : {"Neg", "Square", "Exp", "Log", "Sqrt", "Rsqrt", "Reciprocal"}) {
    INFO(op);
    ExpectGpuMatchesCpu(Node(op, 1, {{"T", kF}}), {Random(kF, {7, 129}, 0.1, 3)}, 1e-5, 1e-6);
    ExpectGpuMatchesCpu(Node(op, 1, {{"T", kD}}), {Random(kD, {300}, 0.1, 3)}, 1e-12, 1e-12);
  }
}

TEST_CASE("GPU binary element-wise ops broadcast like the CPU", "[gpu][cwise]") {
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {{4, 5}, {4, 5}}, {{3, 4, 5}, {5}}, {{3, 1, 5}, {1, 4, 1}}, {{}, {6, 2}}, {{2, 3, 1}, {}}};
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Pow"})
    for (const auto& [x, y] : shapes) {
      INFO(op << " " << x.DebugString() << " " << y.DebugString());
      ExpectGpuMatchesCpu(Node(op, 2, {{"T", kF}}),
                          {Random(kF, x, 0.5, 2, 5), Random(kF, y, 0.5, 2, 6)}, 1e-5, 1e-6);
    }
  for (const char* op : {"Greater", "Less", "Equal"}) {
    Tensor x = Random(kF, {3, 4}, -1, 1, 7);
    Tensor y = Random(kF, {4}, -1, 1, 8);
    x.data<float>()[1] = y.data<float>()[1];  // one equal pair
    ExpectGpuMatchesCpu(Node(op, 2, {{"T", kF}}), {x, y}, 0, 0);
  }
  auto bad = test::TryRun(test::Gpu(), Node("Add", 2, {{"T", kF}}),
                          {Random(kF, {2, 3}), Random(kF, {4})});
  CHECK_THAT(bad.status().message(), Catch::Contains("incompatible shapes [2,3] and [4]"));
}

TEST_CASE("GPU activation gradients and BiasAdd match the CPU", "[gpu][cwise]") {
  for (const char* op : {"ReluGrad", "SigmoidGrad", "TanhGrad"})
    ExpectGpuMatchesCpu(Node(op, 2, {{"T", kF}}),
                        {Random(kF, {6, 50}, -1, 1, 9), Random(kF, {6, 50}, -1, 1, 10)}, 1e-5,
                        1e-6);
  ExpectGpuMatchesCpu(Node("BiasAdd", 2, {{"T", kF}}),
                      {Random(kF, {2, 3, 4, 7}), Random(kF, {7}, -1, 1, 11)}, 1e-6, 1e-7);
  ExpectGpuMatchesCpu(Node("BiasAddGrad", 1, {{"T", kF}}), {Random(kF, {2, 3, 4, 7})}, 1e-5,
                      1e-5);
  // Long columns (a conv layer's N*H*W rows): the chunked column sums with atomics.
  ExpectGpuMatchesCpu(Node("BiasAddGrad", 1, {{"T", kF}}), {Random(kF, {8, 17, 15, 24})}, 1e-4,
                      1e-4);
  ExpectGpuMatchesCpu(Node("BiasAddGrad", 1, {{"T", DataType::kDouble}}),
                      {Random(DataType::kDouble, {4, 33, 33, 3})}, 1e-10, 1e-10);
  ExpectGpuMatchesCpu(Node("Mean", 2, {{"T", kF}, {"Tidx", DataType::kInt32}}),
                      {Random(kF, {3, 5000, 37}), Tensor::FromVector<int32_t>({1}, {1})}, 1e-4,
                      1e-5);
}

TEST_CASE("GPU reductions match the CPU over any axes", "[gpu][reduction]") {
  const std::vector<std::vector<int32_t>> axes = {{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}, {-1}};
  for (const char* op : {"Sum", "Mean", "Max", "Min"})
    for (const auto& ax : axes)
      for (bool keep : {false, true}) {
        INFO(op << " axes " << ax.size() << " first " << ax[0] << " keep_dims " << keep);
        NodeDef n = Node(op, 2, {{"T", kF}, {"Tidx", DataType::kInt32}, {"keep_dims", keep}});
        ExpectGpuMatchesCpu(n, {Random(kF, {9, 130, 3}),
                                Tensor::FromVector<int32_t>(ax, {static_cast<int64_t>(ax.size())})},
                            1e-5, 1e-5);
      }
  auto bad = test::TryRun(test::Gpu(), Node("Sum", 2, {{"T", kF}, {"Tidx", DataType::kInt32}}),
                          {Random(kF, {2, 2}), Tensor::FromVector<int32_t>({2})});
  CHECK_THAT(bad.status().message(), Catch::Contains("out of range"));
}

TEST_CASE("GPU SoftmaxCrossEntropyWithLogits matches the CPU", "[gpu][reduction]") {
  Tensor labels = Random(kF, {33, 10}, 0, 1, 12);
  for (int b = 0; b < 33; ++b) {  // rows summing to 1
    float sum = 0;
    for (int c = 0; c < 10; ++c) sum += labels.data<float>()[b * 10 + c];
    for (int c = 0; c < 10; ++c) labels.data<float>()[b * 10 + c] /= sum;
  }
  ExpectGpuMatchesCpu(Node("SoftmaxCrossEntropyWithLogits", 2, {{"T", kF}}),
                      {Random(kF, {33, 10}, -5, 5), labels}, 1e-5, 1e-6);
}

}  // namespace
}  // namespace fb::gpu
