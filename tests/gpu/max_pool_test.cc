// GPU MaxPool and MaxPoolGrad (max_pool_ops.cc, max_pool_kernels.cu) against the CPU kernels,
// exactly: the GPU recomputes each window's argmax with the CPU's rule (the first NaN, else the
// first maximum, in row-major window order) and sums a pixel's gradients in the CPU's order. Inputs
// with many ties (values from {0, 1, 2}) and with NaNs, SAME (symmetric and asymmetric) and VALID
// padding, overlapping and disjoint windows, float and double.
#include <cmath>

#include <catch2/catch.hpp>

#include "engine/ops/nn_ops_common.h"
#include "tests/gpu/gpu_test_util.h"

namespace fb::gpu {
namespace {

using test::Node;

struct MaxPoolCase {
  std::vector<int64_t> input;
  int64_t window_rows, window_cols, stride_rows, stride_cols;
  const char* padding;
};

// GoogLeNet's geometries at a small size (3x3/2 SAME 14 -> 7 pads 0 before and 1 after, like
// 112 -> 56; 3x3/1 SAME as in the inception blocks), AlexNet's 3x3/2 VALID, 2x2/2, unequal
// windows and strides, and a window larger than the padded input's remainder.
const std::vector<MaxPoolCase> kCases = {
    {{2, 14, 14, 8}, 3, 3, 2, 2, "SAME"},  {{2, 7, 7, 37}, 3, 3, 1, 1, "SAME"},
    {{2, 13, 13, 5}, 3, 3, 2, 2, "VALID"}, {{1, 9, 8, 3}, 2, 2, 2, 2, "SAME"},
    {{2, 9, 11, 4}, 3, 2, 2, 3, "SAME"},   {{1, 6, 7, 2}, 4, 4, 1, 2, "SAME"},
    {{3, 5, 5, 1}, 5, 5, 1, 1, "VALID"},
};

AttrMap Attrs(const MaxPoolCase& c, DataType dtype) {
  return {{"T", dtype},
          {"ksize", std::vector<int64_t>{1, c.window_rows, c.window_cols, 1}},
          {"strides", std::vector<int64_t>{1, c.stride_rows, c.stride_cols, 1}},
          {"padding", std::string(c.padding)}};
}

// Values from {0, 1, 2} (ties in almost every window); every `nan_every`-th element NaN if > 0.
Tensor TiedInput(DataType dtype, const std::vector<int64_t>& dims, int nan_every, unsigned seed) {
  Tensor t = test::Random(dtype, TensorShape(dims), 0, 3, seed);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const bool nan = nan_every > 0 && i % nan_every == 0;
    if (dtype == DataType::kFloat) {
      float& v = t.data<float>()[i];
      v = nan ? std::nanf("") : std::floor(v);
    } else {
      double& v = t.data<double>()[i];
      v = nan ? std::nan("") : std::floor(v);
    }
  }
  return t;
}

// Equal values, NaN where the CPU has NaN.
void ExpectSame(const Tensor& gpu, const Tensor& cpu) {
  REQUIRE(gpu.shape() == cpu.shape());
  REQUIRE(gpu.dtype() == cpu.dtype());
  for (int64_t i = 0; i < cpu.NumElements(); ++i) {
    const bool f = cpu.dtype() == DataType::kFloat;
    const double g = f ? gpu.data<float>()[i] : gpu.data<double>()[i];
    const double c = f ? cpu.data<float>()[i] : cpu.data<double>()[i];
    INFO("element " << i << ": gpu " << g << " cpu " << c);
    if (std::isnan(c)) CHECK(std::isnan(g));
    else CHECK(g == c);
  }
}

TEST_CASE("GPU MaxPool and MaxPoolGrad equal the CPU with ties, NaNs and any padding",
          "[gpu][pool]") {
  for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
    for (const MaxPoolCase& c : kCases) {
      for (int nan_every : {0, 7}) {
        INFO("input " << DimsString(c.input) << " window " << c.window_rows << "x"
                      << c.window_cols << " strides " << c.stride_rows << "x" << c.stride_cols
                      << " " << c.padding << (dtype == DataType::kFloat ? " float" : " double")
                      << " nan_every " << nan_every);
        Tensor x = TiedInput(dtype, c.input, nan_every, 31);
        NodeDef pool = Node("MaxPool", 1, Attrs(c, dtype));
        Tensor y = test::Run(test::Cpu(), pool, {x})[0];
        ExpectSame(test::Run(test::Gpu(), pool, {x})[0], y);
        Tensor dy = test::Random(dtype, y.shape(), -1, 1, 32);
        NodeDef grad = Node("MaxPoolGrad", 3, Attrs(c, dtype));
        ExpectSame(test::Run(test::Gpu(), grad, {x, y, dy})[0],
                   test::Run(test::Cpu(), grad, {x, y, dy})[0]);
      }
    }
  }
}

TEST_CASE("GPU MaxPoolGrad names a grad of the wrong shape", "[gpu][pool]") {
  const MaxPoolCase c{{1, 8, 8, 2}, 3, 3, 2, 2, "SAME"};
  Tensor x = test::Random(DataType::kFloat, TensorShape(c.input), -1, 1, 33);
  Tensor y(DataType::kFloat, TensorShape({1, 4, 4, 2}));
  Tensor bad(DataType::kFloat, TensorShape({1, 4, 3, 2}));
  auto out = test::TryRun(test::Gpu(), Node("MaxPoolGrad", 3, Attrs(c, DataType::kFloat)),
                          {x, y, bad});
  REQUIRE_FALSE(out.ok());
  REQUIRE_THAT(out.status().message(),
               Catch::Contains("grad must have the pooled shape [1,4,4,2], got shape [1,4,3,2]"));
}

}  // namespace
}  // namespace fb::gpu
