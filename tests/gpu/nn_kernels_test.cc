// GPU cuDNN kernels (Conv2D and its backprops, pooling, activations, softmax) against the CPU
// kernels on random NHWC inputs. Tolerance rtol 1e-4 / atol 1e-4 for float convolutions (cuDNN's
// algorithms sum in other orders; TF32 is off), 1e-5 / 1e-6 for the rest.
#include <catch2/catch.hpp>

#include "engine/ops/nn_ops_common.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::ExpectGpuMatchesCpu;
using test::Node;
using test::Random;

constexpr DataType kF = DataType::kFloat;

struct ConvCase {
  std::vector<int64_t> input, filter;
  int stride;
  const char* padding;
};

AttrMap ConvAttrs(const ConvCase& c) {
  return {{"T", kF},
          {"strides", std::vector<int64_t>{1, c.stride, c.stride, 1}},
          {"padding", std::string(c.padding)}};
}

Tensor Sizes(const std::vector<int64_t>& v) {
  return Tensor::FromVector<int32_t>(std::vector<int32_t>(v.begin(), v.end()));
}

const std::vector<ConvCase> kConvCases = {
    {{2, 28, 28, 1}, {5, 5, 1, 6}, 1, "SAME"},   // LeNet conv1
    {{2, 14, 14, 6}, {5, 5, 6, 16}, 1, "VALID"},  // LeNet conv2
    {{3, 9, 11, 4}, {3, 3, 4, 8}, 2, "VALID"},
    {{1, 8, 8, 3}, {1, 1, 3, 5}, 1, "SAME"},
};

TEST_CASE("GPU Conv2D and its backprops match the CPU", "[gpu][conv]") {
  for (const ConvCase& c : kConvCases) {
    INFO("input " << DimsString(c.input) << " filter " << DimsString(c.filter) << " "
                  << c.padding << " stride " << c.stride);
    Tensor x = Random(kF, TensorShape(c.input), -1, 1, 1);
    Tensor w = Random(kF, TensorShape(c.filter), -1, 1, 2);
    auto y = test::Run(test::Cpu(), Node("Conv2D", 2, ConvAttrs(c)), {x, w});
    ExpectGpuMatchesCpu(Node("Conv2D", 2, ConvAttrs(c)), {x, w}, 1e-4, 1e-4);
    Tensor dy = Random(kF, y[0].shape(), -1, 1, 3);
    ExpectGpuMatchesCpu(Node("Conv2DBackpropInput", 3, ConvAttrs(c)), {Sizes(c.input), w, dy},
                        1e-4, 1e-4);
    ExpectGpuMatchesCpu(Node("Conv2DBackpropFilter", 3, ConvAttrs(c)), {x, Sizes(c.filter), dy},
                        1e-4, 1e-4);
  }
}

TEST_CASE("GPU Conv2D says Unimplemented for asymmetric SAME padding", "[gpu][conv]") {
  ConvCase c{{1, 28, 28, 1}, {3, 3, 1, 2}, 2, "SAME"};  // pads 0 before, 1 after
  auto out = test::TryRun(test::Gpu(), Node("Conv2D", 2, ConvAttrs(c)),
                          {Random(kF, TensorShape(c.input)), Random(kF, TensorShape(c.filter))});
  REQUIRE(!out.ok());
  CHECK(out.status().code() == Code::kUnimplemented);
  CHECK_THAT(out.status().message(), Catch::Contains("pads one side more than the other"));
}

TEST_CASE("GPU pooling and its gradients match the CPU", "[gpu][pool]") {
  struct PoolCase {
    std::vector<int64_t> input;
    int window, stride;
    const char* padding;
  };
  for (const PoolCase& c : {PoolCase{{2, 28, 28, 6}, 2, 2, "VALID"},
                            PoolCase{{2, 9, 9, 3}, 3, 1, "SAME"},
                            PoolCase{{1, 7, 7, 2}, 3, 2, "VALID"}}) {
    INFO("input " << DimsString(c.input) << " window " << c.window << " " << c.padding);
    AttrMap attrs = {{"T", kF},
                     {"ksize", std::vector<int64_t>{1, c.window, c.window, 1}},
                     {"strides", std::vector<int64_t>{1, c.stride, c.stride, 1}},
                     {"padding", std::string(c.padding)}};
    Tensor x = Random(kF, TensorShape(c.input), -1, 1, 4);
    for (const char* op : {"MaxPool", "AvgPool"}) ExpectGpuMatchesCpu(Node(op, 1, attrs), {x}, 1e-5, 1e-6);
    Tensor y = test::Run(test::Cpu(), Node("MaxPool", 1, attrs), {x})[0];
    Tensor dy = Random(kF, y.shape(), -1, 1, 5);
    ExpectGpuMatchesCpu(Node("MaxPoolGrad", 3, attrs), {x, y, dy}, 1e-5, 1e-6);
    ExpectGpuMatchesCpu(Node("AvgPoolGrad", 2, attrs), {Sizes(c.input), dy}, 1e-5, 1e-6);
  }
}

TEST_CASE("GPU activations and softmax match the CPU", "[gpu][activation]") {
  for (const char* op : {"Relu", "Sigmoid", "Tanh"})
    ExpectGpuMatchesCpu(Node(op, 1, {{"T", kF}}), {Random(kF, {4, 5, 6}, -3, 3)}, 1e-5, 1e-6);
  for (const char* op : {"Softmax", "LogSoftmax"})
    ExpectGpuMatchesCpu(Node(op, 1, {{"T", kF}}), {Random(kF, {3, 4, 10}, -5, 5)}, 1e-5, 1e-6);
}

}  // namespace
}  // namespace fb::gpu
