// ConvSgemm (kernels/cpu/conv_gemm.h), the GEMM under the CPU convolutions, with each backend the
// build has (oneDNN when FB_HAVE_DNNL, OpenBLAS always) against a float64 loop: every transpose
// combination, leading dimensions wider than the matrices, alpha and beta (the filter gradient
// accumulates with beta = 1); and the float Conv2D kernels at an im2col shape under both backends.
#include <random>

#include "engine/ops/nn_ops_common.h"
#include "kernels/cpu/conv_gemm.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using nn::ConvGemmBackend;

std::vector<float> RandomFloats(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = u(gen);
  return v;
}

// Restores the process's backend when a test section ends.
struct BackendGuard {
  ConvGemmBackend saved = nn::CurrentConvGemmBackend();
  ~BackendGuard() { nn::SetConvGemmBackend(saved); }
};

std::vector<ConvGemmBackend> Backends() {
  std::vector<ConvGemmBackend> b = {ConvGemmBackend::kOpenBlas};
  if (nn::DnnlAvailable()) b.push_back(ConvGemmBackend::kDnnl);
  return b;
}

TEST_CASE("ConvSgemm matches a float64 loop with each backend", "[nn][conv][conv-gemm]") {
  BackendGuard guard;
  const int64_t m = 37, n = 70, k = 53, pad = 5;
  for (ConvGemmBackend backend : Backends())
    for (bool ta : {false, true})
      for (bool tb : {false, true})
        for (float beta : {0.0f, 1.0f}) {
          REQUIRE(nn::SetConvGemmBackend(backend));
          const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
          const std::vector<float> a = RandomFloats((ta ? k : m) * lda, 1);
          const std::vector<float> b = RandomFloats((tb ? n : k) * ldb, 2);
          std::vector<float> c = RandomFloats(m * ldc, 3);
          const std::vector<float> c0 = c;
          nn::ConvSgemm(ta, tb, m, n, k, 0.5f, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
          INFO(nn::ConvGemmBackendName(backend) << " trans_a " << ta << " trans_b " << tb
                                                << " beta " << beta);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < ldc; ++j) {
              double want = c0[i * ldc + j];
              if (j < n) {
                double sum = 0;
                for (int64_t l = 0; l < k; ++l)
                  sum += double(ta ? a[l * lda + i] : a[i * lda + l]) *
                         double(tb ? b[j * ldb + l] : b[l * ldb + j]);
                want = 0.5 * sum + beta * want;
              }
              // Padding columns of c stay as they were.
              REQUIRE(c[i * ldc + j] == Approx(want).margin(1e-4).epsilon(1e-5));
            }
        }
}

TEST_CASE("SetConvGemmBackend names the backends and refuses oneDNN when not built",
          "[nn][conv][conv-gemm]") {
  BackendGuard guard;
  CHECK(std::string(nn::ConvGemmBackendName(ConvGemmBackend::kDnnl)) == "onednn");
  CHECK(std::string(nn::ConvGemmBackendName(ConvGemmBackend::kOpenBlas)) == "openblas");
  REQUIRE(nn::SetConvGemmBackend(ConvGemmBackend::kOpenBlas));
  CHECK(nn::CurrentConvGemmBackend() == ConvGemmBackend::kOpenBlas);
  CHECK(nn::SetConvGemmBackend(ConvGemmBackend::kDnnl) == nn::DnnlAvailable());
  CHECK(nn::CurrentConvGemmBackend() ==
        (nn::DnnlAvailable() ? ConvGemmBackend::kDnnl : ConvGemmBackend::kOpenBlas));
}

// Conv2D and its two gradients in float, through the kernels, with each backend against the
// float64 kernels (OpenBLAS dgemm): a 3x3 SAME im2col layer split into bands of output rows, a
// strided VALID one, and a 1x1 layer whose patches are the input; 32 filters, so none takes the
// narrow (few-filter) kernels.
TEST_CASE("Conv2D float kernels match float64 with each GEMM backend", "[nn][conv][conv-gemm]") {
  BackendGuard guard;
  struct Case {
    std::vector<int64_t> input, filter;
    ops::Window2D strides;
    const char* padding;
  };
  const std::vector<Case> cases = {{{2, 40, 40, 8}, {3, 3, 8, 32}, {1, 1}, "SAME"},
                                   {{3, 17, 15, 5}, {5, 3, 5, 32}, {2, 3}, "VALID"},
                                   {{4, 9, 9, 24}, {1, 1, 24, 32}, {1, 1}, "VALID"}};
  auto run = [](const Case& c, const Tensor& x, const Tensor& w, const Tensor& g) {
    std::vector<int32_t> in_sizes(c.input.begin(), c.input.end());
    std::vector<int32_t> f_sizes(c.filter.begin(), c.filter.end());
    return test::RunOpOk(
        [&](const Scope& sc, const std::vector<Output>& in) {
          return std::vector<Output>{
              ops::Conv2D(sc, in[0], in[1], c.strides, c.padding),
              ops::Conv2DBackpropInput(sc, in[3], in[1], in[2], c.strides, c.padding),
              ops::Conv2DBackpropFilter(sc, in[0], in[4], in[2], c.strides, c.padding)};
        },
        {x, w, g, Tensor::FromVector<int32_t>(in_sizes), Tensor::FromVector<int32_t>(f_sizes)});
  };
  auto as = [](const Tensor& t, DataType type) {
    Tensor out(type, t.shape());
    if (type == DataType::kDouble) out.flat<double>() = t.flat<float>().cast<double>();
    else out.flat<float>() = t.flat<double>().cast<float>();
    return out;
  };
  unsigned seed = 20;
  for (const Case& c : cases) {
    const Tensor x = test::RandomTensor<float>(TensorShape(c.input), -1, 1, seed++);
    const Tensor w = test::RandomTensor<float>(TensorShape(c.filter), -1, 1, seed++);
    // out_backprop has the forward output's shape.
    const TensorShape out_shape =
        test::RunOpOk([&](const Scope& sc, const std::vector<Output>& in) {
          return std::vector<Output>{ops::Conv2D(sc, in[0], in[1], c.strides, c.padding)};
        }, {x, w})[0].shape();
    const Tensor g = test::RandomTensor<float>(out_shape, -1, 1, seed++);
    const std::vector<Tensor> want = run(c, as(x, DataType::kDouble), as(w, DataType::kDouble),
                                         as(g, DataType::kDouble));
    for (ConvGemmBackend backend : Backends()) {
      REQUIRE(nn::SetConvGemmBackend(backend));
      const std::vector<Tensor> got = run(c, x, w, g);
      INFO(nn::ConvGemmBackendName(backend) << " input " << DimsString(c.input) << " filter "
                                            << DimsString(c.filter));
      for (int i = 0; i < 3; ++i)
        test::ExpectClose(got[i], as(want[i], DataType::kFloat), 1e-4, 1e-4);
    }
  }
}

}  // namespace
}  // namespace fb
