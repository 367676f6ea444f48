// Relu, Sigmoid, Tanh, their gradient ops, BiasAdd and BiasAddGrad: forward values computed by
// hand (closed forms), gradients checked numerically in float64 (tests/gradient_checker.h).
#include <cmath>

#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::RunOpOk;
using test::Values;

Tensor F(const std::vector<float>& v, const TensorShape& shape) {
  return Tensor::FromVector<float>(v, shape);
}

TEST_CASE("Relu, Sigmoid and Tanh compute their closed forms", "[nn][nn-activation]") {
  Tensor x = F({-2.f, -0.5f, 0.f, 0.5f, 3.f, 40.f}, {2, 3});
  auto out = RunOpOk(
      [](const Scope& s, const std::vector<Output>& in) {
        return std::vector<Output>{ops::Relu(s, in[0]), ops::Sigmoid(s, in[0]),
                                   ops::Tanh(s, in[0])};
      },
      {x});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 0, 0, 0.5f, 3, 40});
  for (int i = 0; i < 6; ++i) {
    float v = x.data<float>()[i];
    CHECK(out[1].data<float>()[i] == Approx(1 / (1 + std::exp(-v))).epsilon(1e-6));
    CHECK(out[2].data<float>()[i] == Approx(std::tanh(v)).epsilon(1e-6));
  }
  CHECK(out[1].shape() == TensorShape({2, 3}));
}

TEST_CASE("ReluGrad, SigmoidGrad and TanhGrad apply the chain rule", "[nn][nn-activation]") {
  Tensor g = F({1.f, 2.f, 3.f, 4.f}, {4});
  Tensor y = F({-1.f, 0.f, 0.25f, 0.5f}, {4});
  auto out = RunOpOk(
      [](const Scope& s, const std::vector<Output>& in) {
        return std::vector<Output>{ops::ReluGrad(s, in[0], in[1]), ops::SigmoidGrad(s, in[1], in[0]),
                                   ops::TanhGrad(s, in[1], in[0])};
      },
      {g, y});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 0, 3, 4});
  // dy * y * (1 - y): 1*-1*2, 0, 3*0.25*0.75, 4*0.5*0.5
  CHECK(Values<float>(out[1]) == std::vector<float>{-2.f, 0.f, 0.5625f, 1.f});
  // dy * (1 - y^2): 1*0, 2*1, 3*(1-1/16), 4*0.75
  CHECK(Values<float>(out[2]) == std::vector<float>{0.f, 2.f, 2.8125f, 3.f});
}

TEST_CASE("Gradient ops reject inputs of different shapes", "[nn][nn-activation][errors]") {
  Status st = test::RunOpError(
      [](const Scope& s, const std::vector<Output>& in) {
        return std::vector<Output>{ops::ReluGrad(s.WithOpName("rg"), in[0], in[1])};
      },
      {F({1, 2, 3}, {3}), F({1, 2}, {2})});
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("ReluGrad 'rg'"));
  CHECK_THAT(st.message(),
             Catch::Contains("gradients and features must have the same shape, got [3] and [2]"));
}

TEST_CASE("BiasAdd adds along the last dimension, BiasAddGrad sums the rest",
          "[nn][nn-activation]") {
  Tensor value = F({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 2, 3});
  Tensor bias = F({10, 20, 30}, {3});
  auto out = RunOpOk(
      [](const Scope& s, const std::vector<Output>& in) {
        return std::vector<Output>{ops::BiasAdd(s, in[0], in[1]), ops::BiasAddGrad(s, in[0])};
      },
      {value, bias});
  CHECK(Values<float>(out[0]) ==
        std::vector<float>{11, 22, 33, 14, 25, 36, 17, 28, 39, 20, 31, 42});
  CHECK(out[1].shape() == TensorShape({3}));
  CHECK(Values<float>(out[1]) == std::vector<float>{1 + 4 + 7 + 10, 2 + 5 + 8 + 11, 3 + 6 + 9 + 12});
}

TEST_CASE("BiasAdd rejects a bias that does not match the last dimension",
          "[nn][nn-activation][errors]") {
  Status st = test::RunOpError(
      [](const Scope& s, const std::vector<Output>& in) {
        return std::vector<Output>{ops::BiasAdd(s.WithOpName("ba"), in[0], in[1])};
      },
      {F({1, 2, 3, 4, 5, 6}, {2, 3}), F({1, 2}, {2})});
  CHECK_THAT(st.message(), Catch::Contains("BiasAdd 'ba'"));
  CHECK_THAT(st.message(),
             Catch::Contains("bias must be 1-D of the last dimension of value [2,3], got shape [2]"));

  auto shapes = test::InferShapes("BiasAdd", "ba", {{"T", DataType::kFloat}},
                                  {TensorShape{4, 3}, TensorShape{2}});
  REQUIRE_FALSE(shapes.ok());
  CHECK_THAT(shapes.status().message(),
             Catch::Contains("BiasAdd 'ba': bias size must match the last dimension of value: "
                             "dimensions 3 and 2 differ"));
}

TEST_CASE("Activation and BiasAdd gradients match numerical gradients", "[nn][nn-activation][grad]") {
  Tensor x = test::RandomDouble({3, 4}, -2, 2);
  // Keep Relu inputs away from the kink at 0 where the numerical derivative is undefined.
  for (int64_t i = 0; i < x.NumElements(); ++i)
    if (std::abs(x.data<double>()[i]) < 0.1) x.data<double>()[i] = 0.5;
  using Xs = const std::vector<Output>&;
  CHECK(test::MaxGradientError([](const Scope& s, Xs xs) { return ops::Relu(s, xs[0]); }, {x}) <
        1e-8);
  CHECK(test::MaxGradientError([](const Scope& s, Xs xs) { return ops::Sigmoid(s, xs[0]); }, {x}) <
        1e-8);
  CHECK(test::MaxGradientError([](const Scope& s, Xs xs) { return ops::Tanh(s, xs[0]); }, {x}) <
        1e-8);
  Tensor bias = test::RandomDouble({4}, -1, 1, 3);
  CHECK(test::MaxGradientError([](const Scope& s, Xs xs) { return ops::BiasAdd(s, xs[0], xs[1]); },
                               {x, bias}) < 1e-8);
}

TEST_CASE("ReluGrad passes gradients where features are positive, at every vector position",
          "[nn][nn-activation]") {
  // Lengths around the 8-float and 4-double vector widths, so that both the vector body and the
  // scalar tail see each kind of feature: positive, zero, -0, negative, NaN, +inf, denormal.
  const std::vector<double> kinds = {1.5, 0.0, -0.0, -2.0, std::nan(""), INFINITY, 1e-310};
  for (int64_t n : {1, 7, 8, 9, 17, 40}) {
    std::vector<double> f(n), g(n), want(n);
    for (int64_t i = 0; i < n; ++i) {
      f[i] = kinds[(i * 3) % kinds.size()];
      g[i] = static_cast<double>(i + 1);
      want[i] = f[i] > 0 ? g[i] : 0.0;
    }
    std::vector<float> ff(f.begin(), f.end()), gf(g.begin(), g.end()), wf(want.begin(), want.end());
    for (int64_t i = 0; i < n; ++i) wf[i] = ff[i] > 0 ? gf[i] : 0.f;  // 1e-310 is 0 in float
    INFO("length " << n);
    auto relu_grad = [](const Tensor& g, const Tensor& f) {
      return RunOpOk(
          [](const Scope& s, const std::vector<Output>& in) {
            return std::vector<Output>{ops::ReluGrad(s, in[0], in[1])};
          },
          {g, f})[0];
    };
    CHECK(Values<double>(relu_grad(Tensor::FromVector<double>(g), Tensor::FromVector<double>(f))) ==
          want);
    CHECK(Values<float>(relu_grad(Tensor::FromVector<float>(gf), Tensor::FromVector<float>(ff))) ==
          wf);
  }
}

TEST_CASE("BiasAddGrad sums many rows in chunks to the float64 sum", "[nn][nn-activation]") {
  // 70,001 rows of depth 3 span several chunks of 64K values and a partial last chunk.
  Tensor dy = test::RandomDouble({70001, 3}, -1, 1, 4);
  std::vector<double> want(3, 0.0);
  for (int64_t i = 0; i < dy.NumElements(); ++i) want[i % 3] += dy.data<double>()[i];
  auto out = RunOpOk(
      [](const Scope& s, const std::vector<Output>& in) {
        return std::vector<Output>{ops::BiasAddGrad(s, in[0])};
      },
      {dy})[0];
  REQUIRE(out.shape() == TensorShape({3}));
  for (int c = 0; c < 3; ++c) CHECK(out.data<double>()[c] == Approx(want[c]).epsilon(1e-12));
}

}  // namespace
}  // namespace fb
