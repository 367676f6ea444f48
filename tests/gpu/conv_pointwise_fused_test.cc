// GPU 1x1 convolutions on cuBLAS (conv_ops.cc IsPointwise: forward and both gradients as GEMMs)
// and the GPU _FusedConv2D (convolution + one bias/Relu kernel) against the CPU kernels. Float
// tolerances as nn_kernels_test.cc's convolutions (other summation orders; TF32 off in tests).
#include <cmath>

#include <catch2/catch.hpp>

#include "engine/ops/nn_ops_common.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Node;
using test::Random;

struct Case {
  std::vector<int64_t> input, filter;
  int64_t stride;
  const char* padding;
  DataType dtype;
};

AttrMap Attrs(const Case& c) {
  return {{"T", c.dtype},
          {"strides", std::vector<int64_t>{1, c.stride, c.stride, 1}},
          {"padding", std::string(c.padding)}};
}

Tensor Sizes(const std::vector<int64_t>& v) {
  return Tensor::FromVector<int32_t>(std::vector<int32_t>(v.begin(), v.end()));
}

std::string Describe(const Case& c) {
  return "input " + DimsString(c.input) + " filter " + DimsString(c.filter) + " stride " +
         std::to_string(c.stride) + " " + c.padding +
         (c.dtype == DataType::kFloat ? " float" : " double");
}

TEST_CASE("GPU 1x1 convolutions through cuBLAS match the CPU", "[gpu][conv]") {
  constexpr DataType kF = DataType::kFloat, kD = DataType::kDouble;
  // GoogLeNet-like reduce layers at a small size, VALID and SAME (no padding for 1x1), a single
  // position, odd depths, double; the last is strided (cuDNN, not the GEMM path) for contrast.
  for (const Case& c : {Case{{2, 7, 7, 32}, {1, 1, 32, 16}, 1, "SAME", kF},
                        Case{{3, 5, 4, 13}, {1, 1, 13, 7}, 1, "VALID", kF},
                        Case{{1, 1, 1, 9}, {1, 1, 9, 3}, 1, "SAME", kF},
                        Case{{2, 6, 5, 5}, {1, 1, 5, 11}, 1, "SAME", kD},
                        Case{{2, 7, 7, 6}, {1, 1, 6, 4}, 2, "SAME", kF}}) {
    INFO(Describe(c));
    Tensor x = Random(c.dtype, TensorShape(c.input), -1, 1, 41);
    Tensor w = Random(c.dtype, TensorShape(c.filter), -1, 1, 42);
    auto y = test::Run(test::Cpu(), Node("Conv2D", 2, Attrs(c)), {x, w});
    Tensor dy = Random(c.dtype, y[0].shape(), -1, 1, 43);
    ExpectGpuMatchesCpu(Node("Conv2D", 2, Attrs(c)), {x, w}, 1e-4, 1e-4);
    ExpectGpuMatchesCpu(Node("Conv2DBackpropInput", 3, Attrs(c)), {Sizes(c.input), w, dy}, 1e-4,
                        1e-4);
    ExpectGpuMatchesCpu(Node("Conv2DBackpropFilter", 3, Attrs(c)), {x, Sizes(c.filter), dy},
                        1e-4, 1e-4);
  }
}

TEST_CASE("GPU _FusedConv2D matches the CPU with and without the Relu", "[gpu][conv]") {
  constexpr DataType kF = DataType::kFloat, kD = DataType::kDouble;
  // 3x3 SAME, GoogLeNet's asymmetric 7x7/2 stem at 16x16, a 1x1 (cuBLAS), VALID, double.
  for (const Case& c : {Case{{2, 9, 9, 4}, {3, 3, 4, 6}, 1, "SAME", kF},
                        Case{{2, 16, 16, 3}, {7, 7, 3, 8}, 2, "SAME", kF},
                        Case{{2, 7, 7, 16}, {1, 1, 16, 8}, 1, "SAME", kF},
                        Case{{1, 8, 9, 3}, {3, 2, 3, 5}, 2, "VALID", kD}}) {
    for (bool relu : {true, false}) {
      INFO(Describe(c) << (relu ? " BiasAdd+Relu" : " BiasAdd"));
      AttrMap attrs = Attrs(c);
      attrs["fused_ops"] = relu ? std::vector<std::string>{"BiasAdd", "Relu"}
                                : std::vector<std::string>{"BiasAdd"};
      Tensor x = Random(c.dtype, TensorShape(c.input), -1, 1, 44);
      Tensor w = Random(c.dtype, TensorShape(c.filter), -1, 1, 45);
      Tensor b = Random(c.dtype, TensorShape({c.filter[3]}), -1, 1, 46);
      ExpectGpuMatchesCpu(Node("_FusedConv2D", 3, attrs), {x, w, b}, 1e-4, 1e-4);
    }
  }
}

TEST_CASE("GPU _FusedConv2D keeps NaN through the Relu and names a bad bias", "[gpu][conv]") {
  const Case c{{1, 3, 3, 2}, {1, 1, 2, 3}, 1, "SAME", DataType::kFloat};
  AttrMap attrs = Attrs(c);
  attrs["fused_ops"] = std::vector<std::string>{"BiasAdd", "Relu"};
  Tensor x = Random(DataType::kFloat, TensorShape(c.input), -1, 1, 47);
  Tensor w = Random(DataType::kFloat, TensorShape(c.filter), -1, 1, 48);
  Tensor b = Tensor::FromVector<float>({std::nanf(""), -100.0f, 100.0f});
  Tensor y = test::Run(test::Gpu(), Node("_FusedConv2D", 3, attrs), {x, w, b})[0];
  for (int64_t i = 0; i < y.NumElements(); ++i) {
    INFO("element " << i);
    const float v = y.data<float>()[i];
    if (i % 3 == 0) CHECK(std::isnan(v));
    else if (i % 3 == 1) CHECK(v == 0.0f);
    else CHECK(v > 90.0f);
  }
  auto bad = test::TryRun(test::Gpu(), Node("_FusedConv2D", 3, attrs),
                          {x, w, Tensor::FromVector<float>({1.0f, 2.0f})});
  REQUIRE_FALSE(bad.ok());
  REQUIRE_THAT(bad.status().message(),
               Catch::Contains("bias must be 1-D of the filter's out_depth 3, got shape [2]"));
}

TEST_CASE("GPU Relu and BiasAdd (own kernels) match the CPU, NaN included", "[gpu][activation]") {
  for (DataType dt : {DataType::kFloat, DataType::kDouble}) {
    Tensor x = Random(dt, {3, 4, 5, 6}, -2, 2, 49);
    Tensor b = Random(dt, {6}, -1, 1, 50);
    ExpectGpuMatchesCpu(Node("Relu", 1, {{"T", dt}}), {x}, 0, 0);
    ExpectGpuMatchesCpu(Node("BiasAdd", 2, {{"T", dt}}), {x, b}, 0, 0);
  }
  Tensor x = Tensor::FromVector<float>({std::nanf(""), -1.0f, 2.0f, -0.0f});
  Tensor y = test::Run(test::Gpu(), Node("Relu", 1, {{"T", DataType::kFloat}}), {x})[0];
  CHECK(std::isnan(y.data<float>()[0]));
  CHECK(y.data<float>()[1] == 0.0f);
  CHECK(y.data<float>()[2] == 2.0f);
  CHECK(y.data<float>()[3] == 0.0f);
}

}  // namespace
}  // namespace fb::gpu
