// The narrow-output float GEMMs (kernels/cpu/narrow_gemm.h) against OpenBLAS (nn::Gemm) over
// widths 1..16 (one and two vector registers, partial vectors), row counts around the register
// blocks, strided operands and beta; and the float Conv2D kernels, which use them and the
// direct convolutions of narrow_conv.h for few channels, against the float64 kernels (im2col +
// OpenBLAS dgemm) at LeNet's shapes, strides, dilations and paddings.
#include <random>

#include "engine/ops/nn_ops_common.h"
#include "kernels/cpu/conv_kernels.h"
#include "kernels/cpu/narrow_gemm.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

std::vector<float> Random(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(gen);
  return v;
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(got[i] == Approx(want[i]).margin(1e-4).epsilon(1e-4));
  }
}

TEST_CASE("NarrowGemmNN matches OpenBLAS over widths, row counts and strides", "[nn][nn-conv]") {
  unsigned seed = 1;
  for (int64_t n : {1, 3, 6, 8, 9, 16})
    for (int64_t m : {1, 5, 6, 8, 13, 50})
      for (int64_t k : {1, 7, 25}) {
        INFO("m " << m << " n " << n << " k " << k);
        const int64_t lda = k + 2, ldb = n + 1, ldc = n + 3;
        std::vector<float> a = Random(m * lda, seed++), b = Random(k * ldb, seed++);
        std::vector<float> got = Random(m * ldc, seed++), want = got;
        nn::NarrowGemmNN(m, n, k, a.data(), lda, b.data(), ldb, got.data(), ldc);
        nn::Gemm(false, false, m, n, k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, want.data(),
                 ldc);
        ExpectNear(got, want);  // including the untouched padding columns of c
      }
}

TEST_CASE("NarrowGemmTN matches OpenBLAS over widths, row counts, strides and beta",
          "[nn][nn-conv]") {
  unsigned seed = 100;
  for (int64_t n : {1, 6, 8, 11, 16})
    for (int64_t m : {1, 63, 64, 65, 200})
      for (int64_t k : {1, 6, 13, 25})
        for (float beta : {0.0f, 1.0f, 0.5f}) {
          INFO("m " << m << " n " << n << " k " << k << " beta " << beta);
          const int64_t lda = k + 1, ldb = n + 2, ldc = n + 1;
          std::vector<float> a = Random(m * lda, seed++), b = Random(m * ldb, seed++);
          std::vector<float> got = Random(k * ldc, seed++), want = got;
          if (beta == 0) std::fill(got.begin(), got.end(), std::nanf(""));  // must not be read
          if (beta == 0) {
            for (int64_t i = 0; i < k; ++i)  // keep c's padding columns comparable
              for (int64_t j = n; j < ldc; ++j) got[i * ldc + j] = want[i * ldc + j];
          }
          nn::NarrowGemmTN(m, n, k, a.data(), lda, b.data(), ldb, beta, got.data(), ldc);
          nn::Gemm(true, false, k, n, m, 1.0f, a.data(), lda, b.data(), ldb, beta, want.data(),
                   ldc);
          ExpectNear(got, want);
        }
}

TEST_CASE("Float Conv2D and its backprops with few filters match the float64 kernels",
          "[nn][nn-conv]") {
  struct Case {
    std::vector<int64_t> input, filter;
    ops::Window2D strides, dilations;
    std::string padding;
  };
  // LeNet's conv1 and conv2 (at batch 8), 9 filters (two vectors) with strides, dilations and
  // padding on either side, and 17 filters (OpenBLAS).
  const Case cases[] = {{{8, 28, 28, 1}, {5, 5, 1, 6}, {1, 1}, {1, 1}, "SAME"},
                        {{8, 14, 14, 6}, {5, 5, 6, 16}, {1, 1}, {1, 1}, "VALID"},
                        {{3, 9, 7, 4}, {3, 3, 4, 9}, {1, 1}, {1, 1}, "SAME"},
                        {{2, 11, 13, 3}, {3, 2, 3, 9}, {2, 3}, {1, 1}, "SAME"},
                        {{2, 12, 11, 2}, {3, 3, 2, 5}, {1, 2}, {2, 2}, "SAME"},
                        {{2, 9, 8, 1}, {3, 2, 1, 2}, {1, 2}, {2, 3}, "VALID"},
                        {{2, 12, 11, 3}, {3, 2, 3, 4}, {1, 1}, {2, 3}, "SAME"},
                        {{2, 12, 11, 3}, {2, 3, 3, 20}, {1, 1}, {3, 2}, "VALID"},
                        {{2, 5, 4, 3}, {7, 6, 3, 4}, {1, 1}, {1, 1}, "SAME"},  // wider than input
                        {{5, 4, 5, 3}, {1, 1, 3, 4}, {1, 1}, {1, 1}, "VALID"},  // 1x1: GEMMs
                        {{3, 8, 9, 2}, {2, 3, 2, 5}, {2, 2}, {1, 1}, "VALID"},
                        {{2, 10, 9, 2}, {3, 3, 2, 3}, {1, 1}, {1, 1}, "VALID"},
                        {{3, 9, 7, 4}, {3, 3, 4, 17}, {1, 1}, {1, 1}, "VALID"}};
  unsigned seed = 7;
  for (const Case& c : cases) {
    INFO("input " << DimsString(c.input) << " filter " << DimsString(c.filter) << " "
                  << c.padding);
    Window2DAttrs attrs;
    attrs.stride_rows = c.strides.rows, attrs.stride_cols = c.strides.cols;
    attrs.dilation_rows = c.dilations.rows, attrs.dilation_cols = c.dilations.cols;
    attrs.padding = c.padding == "SAME" ? Padding::kSame : Padding::kValid;
    auto shape = ComputeConv2DShape(c.input, c.filter, attrs);
    REQUIRE(shape.ok());
    Tensor x = test::RandomTensor<float>(TensorShape(c.input), -1, 1, seed++);
    Tensor w = test::RandomTensor<float>(TensorShape(c.filter), -1, 1, seed++);
    Tensor g = test::RandomTensor<float>(TensorShape(shape->OutputDims()), -1, 1, seed++);
    auto run = [&](DataType dt) {
      auto cast = [&](const Tensor& t) {
        if (dt == DataType::kFloat) return t;
        Tensor d(DataType::kDouble, t.shape());
        d.flat<double>() = t.flat<float>().cast<double>();
        return d;
      };
      std::vector<int32_t> in_sizes(c.input.begin(), c.input.end());
      std::vector<int32_t> f_sizes(c.filter.begin(), c.filter.end());
      return test::RunOpOk(
          [&](const Scope& sc, const std::vector<Output>& in) {
            const ops::Window2D st = c.strides, dil = c.dilations;
            return std::vector<Output>{
                ops::Conv2D(sc, in[0], in[1], st, c.padding, dil),
                ops::Conv2DBackpropInput(sc, in[3], in[1], in[2], st, c.padding, dil),
                ops::Conv2DBackpropFilter(sc, in[0], in[4], in[2], st, c.padding, dil)};
          },
          {cast(x), cast(w), cast(g), Tensor::FromVector<int32_t>(in_sizes),
           Tensor::FromVector<int32_t>(f_sizes)});
    };
    std::vector<Tensor> f = run(DataType::kFloat), d = run(DataType::kDouble);
    for (int i = 0; i < 3; ++i) {
      INFO("output " << i);
      Tensor df(DataType::kFloat, d[i].shape());
      df.flat<float>() = d[i].flat<double>().cast<float>();
      test::ExpectClose(f[i], df, 1e-4, 1e-4);
    }
  }
}

}  // namespace
}  // namespace fb
