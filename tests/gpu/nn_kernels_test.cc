// GPU cuDNN kernels (Conv2D and its backprops, pooling, activations, softmax) against the CPU
// kernels on random NHWC inputs. Tolerance rtol 1e-4 / atol 1e-4 for float convolutions (cuDNN's
// algorithms sum in other orders; TF32 is off), 1e-5 / 1e-6 for the rest.
#include <catch2/catch.hpp>

#include "engine/ops/nn_ops_common.h"
#include "kernels/cuda/conv_direct_launch.h"
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

// SAME padding with an odd total puts the extra row/column at the bottom/right, which cuDNN
// cannot express: the GPU kernels pad the input explicitly (window_launch.h). Cases: GoogLeNet's
// 7x7/2 stem geometry (16 ~ 224: pads 2 before, 3 after), 3x3/2 on 8x8 (0 before, 1 after), even
// windows at stride 1, rows asymmetric but columns not, unequal strides, a dilated window, and
// 7x7/2 on 15x15 (symmetric, through the same code path).
struct PaddedConvCase {
  std::vector<int64_t> input, filter;
  int64_t stride_rows, stride_cols, dilation;
  DataType dtype;
};

TEST_CASE("GPU Conv2D and its backprops match the CPU for asymmetric SAME padding",
          "[gpu][conv]") {
  constexpr DataType kD = DataType::kDouble;
  for (const PaddedConvCase& c : {PaddedConvCase{{2, 16, 16, 3}, {7, 7, 3, 4}, 2, 2, 1, kF},
                                  PaddedConvCase{{1, 15, 15, 3}, {7, 7, 3, 4}, 2, 2, 1, kF},
                                  PaddedConvCase{{2, 8, 8, 5}, {3, 3, 5, 6}, 2, 2, 1, kF},
                                  PaddedConvCase{{2, 7, 7, 2}, {2, 2, 2, 3}, 1, 1, 1, kF},
                                  PaddedConvCase{{1, 9, 12, 3}, {4, 3, 3, 5}, 1, 1, 1, kF},
                                  PaddedConvCase{{2, 12, 11, 2}, {3, 5, 2, 4}, 2, 3, 1, kF},
                                  PaddedConvCase{{1, 8, 8, 2}, {3, 3, 2, 3}, 2, 2, 2, kF},
                                  PaddedConvCase{{2, 8, 9, 3}, {3, 3, 3, 4}, 2, 2, 1, kD}}) {
    INFO("input " << DimsString(c.input) << " filter " << DimsString(c.filter) << " strides "
                  << c.stride_rows << "x" << c.stride_cols << " dilation " << c.dilation
                  << (c.dtype == kD ? " double" : " float"));
    AttrMap attrs = {{"T", c.dtype},
                     {"strides", std::vector<int64_t>{1, c.stride_rows, c.stride_cols, 1}},
                     {"dilations", std::vector<int64_t>{1, c.dilation, c.dilation, 1}},
                     {"padding", std::string("SAME")}};
    Tensor x = Random(c.dtype, TensorShape(c.input), -1, 1, 11);
    Tensor w = Random(c.dtype, TensorShape(c.filter), -1, 1, 12);
    auto y = test::Run(test::Cpu(), Node("Conv2D", 2, attrs), {x, w});
    ExpectGpuMatchesCpu(Node("Conv2D", 2, attrs), {x, w}, 1e-4, 1e-4);
    Tensor dy = Random(c.dtype, y[0].shape(), -1, 1, 13);
    ExpectGpuMatchesCpu(Node("Conv2DBackpropInput", 3, attrs), {Sizes(c.input), w, dy}, 1e-4,
                        1e-4);
    ExpectGpuMatchesCpu(Node("Conv2DBackpropFilter", 3, attrs), {x, Sizes(c.filter), dy}, 1e-4,
                        1e-4);
  }
}

// The direct kernels (conv_direct_launch.h) stand in where cuDNN has no algorithm (the double
// case above, on cuDNN 9.19); forced here for every geometry of both tests, in float and double.
TEST_CASE("GPU direct convolutions match the CPU in float and double", "[gpu][conv]") {
  struct DirectCase {
    std::vector<int64_t> input, filter;
    int64_t stride_rows, stride_cols, dilation;
    const char* padding;
  };
  struct ForceDirect {  // restored even when a REQUIRE throws
    ForceDirect() { SetDirectConvolutionForced(true); }
    ~ForceDirect() { SetDirectConvolutionForced(false); }
  } force_direct;
  for (DataType dtype : {kF, DataType::kDouble}) {
    for (const DirectCase& c : {DirectCase{{2, 28, 28, 1}, {5, 5, 1, 6}, 1, 1, 1, "SAME"},
                                DirectCase{{3, 9, 11, 4}, {3, 3, 4, 8}, 2, 2, 1, "VALID"},
                                DirectCase{{1, 8, 8, 3}, {1, 1, 3, 5}, 1, 1, 1, "SAME"},
                                DirectCase{{2, 16, 16, 3}, {7, 7, 3, 4}, 2, 2, 1, "SAME"},
                                DirectCase{{2, 12, 11, 2}, {3, 5, 2, 4}, 2, 3, 1, "SAME"},
                                DirectCase{{1, 8, 8, 2}, {3, 3, 2, 3}, 2, 2, 2, "SAME"},
                                DirectCase{{2, 9, 10, 3}, {2, 3, 3, 2}, 1, 2, 2, "VALID"}}) {
      INFO("input " << DimsString(c.input) << " filter " << DimsString(c.filter) << " strides "
                    << c.stride_rows << "x" << c.stride_cols << " dilation " << c.dilation << " "
                    << c.padding << (dtype == kF ? " float" : " double"));
      AttrMap attrs = {{"T", dtype},
                       {"strides", std::vector<int64_t>{1, c.stride_rows, c.stride_cols, 1}},
                       {"dilations", std::vector<int64_t>{1, c.dilation, c.dilation, 1}},
                       {"padding", std::string(c.padding)}};
      Tensor x = Random(dtype, TensorShape(c.input), -1, 1, 21);
      Tensor w = Random(dtype, TensorShape(c.filter), -1, 1, 22);
      auto y = test::Run(test::Cpu(), Node("Conv2D", 2, attrs), {x, w});
      Tensor dy = Random(dtype, y[0].shape(), -1, 1, 23);
      ExpectGpuMatchesCpu(Node("Conv2D", 2, attrs), {x, w}, 1e-4, 1e-4);
      ExpectGpuMatchesCpu(Node("Conv2DBackpropInput", 3, attrs), {Sizes(c.input), w, dy}, 1e-4,
                          1e-4);
      ExpectGpuMatchesCpu(Node("Conv2DBackpropFilter", 3, attrs), {x, Sizes(c.filter), dy},
                          1e-4, 1e-4);
    }
  }
}

TEST_CASE("GPU Conv2D and its backprops with an empty batch or depth give zeros",
          "[gpu][conv]") {
  // The output is not empty but every element sums over nothing; cuDNN rejects zero dims.
  auto expect_zeros = [](const NodeDef& node, const std::vector<Tensor>& inputs,
                         const std::vector<int64_t>& dims) {
    INFO(node.op);
    std::vector<Tensor> out = test::Run(test::Gpu(), node, inputs);
    REQUIRE(out[0].shape() == TensorShape(dims));
    CHECK(fb::test::Values<float>(out[0]) == std::vector<float>(out[0].NumElements(), 0.0f));
  };
  ConvCase batch0{{0, 8, 8, 3}, {3, 3, 3, 4}, 2, "SAME"};
  expect_zeros(Node("Conv2DBackpropFilter", 3, ConvAttrs(batch0)),
               {Tensor(kF, TensorShape(batch0.input)), Sizes(batch0.filter),
                Tensor(kF, TensorShape({0, 4, 4, 4}))},
               batch0.filter);
  ConvCase depth0{{2, 8, 8, 3}, {3, 3, 3, 0}, 1, "SAME"};
  expect_zeros(Node("Conv2DBackpropInput", 3, ConvAttrs(depth0)),
               {Sizes(depth0.input), Tensor(kF, TensorShape(depth0.filter)),
                Tensor(kF, TensorShape({2, 8, 8, 0}))},
               depth0.input);
  expect_zeros(Node("Conv2D", 2, ConvAttrs(depth0)),
               {Tensor(kF, TensorShape({2, 8, 8, 0})), Tensor(kF, TensorShape({3, 3, 0, 4}))},
               {2, 8, 8, 4});
}

TEST_CASE("GPU pooling and its gradients match the CPU", "[gpu][pool]") {
  struct PoolCase {
    std::vector<int64_t> input;
    int window, stride;
    const char* padding;
    DataType dtype = kF;
  };
  // The last five pad asymmetrically (the extra row/column at the bottom/right): 3x3/2 on 8x8,
  // 2x2/1 on 7x7, only the columns of 9x8 (float and double), and 3x3/2 on GoogLeNet's
  // 112 -> 56 pool geometry (14).
  for (const PoolCase& c : {PoolCase{{2, 28, 28, 6}, 2, 2, "VALID"},
                            PoolCase{{2, 9, 9, 3}, 3, 1, "SAME"},
                            PoolCase{{1, 7, 7, 2}, 3, 2, "VALID"},
                            PoolCase{{2, 8, 8, 3}, 3, 2, "SAME"},
                            PoolCase{{2, 7, 7, 4}, 2, 1, "SAME"},
                            PoolCase{{2, 9, 8, 3}, 3, 2, "SAME"},
                            PoolCase{{1, 14, 14, 2}, 3, 2, "SAME"},
                            PoolCase{{2, 9, 8, 3}, 3, 2, "SAME", DataType::kDouble}}) {
    INFO("input " << DimsString(c.input) << " window " << c.window << " " << c.padding
                  << (c.dtype == kF ? " float" : " double"));
    AttrMap attrs = {{"T", c.dtype},
                     {"ksize", std::vector<int64_t>{1, c.window, c.window, 1}},
                     {"strides", std::vector<int64_t>{1, c.stride, c.stride, 1}},
                     {"padding", std::string(c.padding)}};
    Tensor x = Random(c.dtype, TensorShape(c.input), -1, 1, 4);
    for (const char* op : {"MaxPool", "AvgPool"}) ExpectGpuMatchesCpu(Node(op, 1, attrs), {x}, 1e-5, 1e-6);
    Tensor y = test::Run(test::Cpu(), Node("MaxPool", 1, attrs), {x})[0];
    Tensor dy = Random(c.dtype, y.shape(), -1, 1, 5);
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
