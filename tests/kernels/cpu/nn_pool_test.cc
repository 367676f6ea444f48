// MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad: hand-computed values on a 4x4 ramp, numerical
// gradient checks in float64, and shape errors.
#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using ops::Window2D;
using test::RunOpOk;
using test::Values;
using Xs = const std::vector<Output>&;

// [1, 4, 4, 1] with x[i][j] = 4 * i + j.
Tensor Ramp4() {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[i] = static_cast<float>(i);
  return Tensor::FromVector<float>(v, {1, 4, 4, 1});
}

Tensor Pool(bool max, const Tensor& x, Window2D k, Window2D s, const std::string& padding) {
  return RunOpOk(
      [&](const Scope& sc, Xs in) {
        return std::vector<Output>{max ? ops::MaxPool(sc, in[0], k, s, padding)
                                       : ops::AvgPool(sc, in[0], k, s, padding)};
      },
      {x})[0];
}

TEST_CASE("MaxPool takes window maxima (hand-computed)", "[nn][nn-pool]") {
  Tensor valid = Pool(true, Ramp4(), {2, 2}, {2, 2}, "VALID");
  CHECK(valid.shape() == TensorShape({1, 2, 2, 1}));
  CHECK(Values<float>(valid) == std::vector<float>{5, 7, 13, 15});
  // SAME 3x3 stride 2: windows cover rows/cols {0,1,2} and {2,3}; padding never wins.
  Tensor x = Ramp4();
  x.flat<float>() -= 100.f;  // all negative: a zero pad would win if it were counted
  CHECK(Values<float>(Pool(true, x, {3, 3}, {2, 2}, "SAME")) ==
        std::vector<float>{-90, -89, -86, -85});
  // Channels are pooled independently.
  Tensor two = Tensor::FromVector<float>({1, 8, 2, 7, 3, 6, 4, 5}, {1, 2, 2, 2});
  CHECK(Values<float>(Pool(true, two, {2, 2}, {2, 2}, "VALID")) == std::vector<float>{4, 8});
}

TEST_CASE("AvgPool divides by the in-bounds window size (hand-computed)", "[nn][nn-pool]") {
  CHECK(Values<float>(Pool(false, Ramp4(), {2, 2}, {2, 2}, "VALID")) ==
        std::vector<float>{2.5f, 4.5f, 10.5f, 12.5f});
  // Window sums 45, 39, 66, 50 over 9, 6, 6, 4 in-bounds elements.
  CHECK(Values<float>(Pool(false, Ramp4(), {3, 3}, {2, 2}, "SAME")) ==
        std::vector<float>{5.f, 6.5f, 11.f, 12.5f});
}

TEST_CASE("MaxPoolGrad routes each gradient to its window's first maximum", "[nn][nn-pool]") {
  auto grad = [](const Tensor& x) {
    return RunOpOk(
        [](const Scope& s, Xs in) {
          Output y = ops::MaxPool(s, in[0], {2, 2}, {2, 2}, "VALID");
          return std::vector<Output>{ops::MaxPoolGrad(s, in[0], y, in[1], {2, 2}, {2, 2}, "VALID")};
        },
        {x, Tensor::FromVector<float>({1, 2, 3, 4}, {1, 2, 2, 1})})[0];
  };
  CHECK(Values<float>(grad(Ramp4())) ==
        std::vector<float>{0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4});
  Tensor ties(DataType::kFloat, {1, 4, 4, 1});
  ties.flat<float>().setConstant(1.f);
  CHECK(Values<float>(grad(ties)) ==
        std::vector<float>{1, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4, 0, 0, 0, 0, 0});
}

TEST_CASE("AvgPoolGrad spreads each gradient over its window", "[nn][nn-pool]") {
  // Gradients 9, 6, 6, 4 over windows of 9, 6, 6, 4 elements add 1 per covering window.
  Tensor dx = RunOpOk(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{ops::AvgPoolGrad(s, in[0], in[1], {3, 3}, {2, 2}, "SAME")};
      },
      {Tensor::FromVector<int32_t>({1, 4, 4, 1}),
       Tensor::FromVector<float>({9, 6, 6, 4}, {1, 2, 2, 1})})[0];
  CHECK(dx.shape() == TensorShape({1, 4, 4, 1}));
  CHECK(Values<float>(dx) == std::vector<float>{1, 1, 2, 1, 1, 1, 2, 1, 2, 2, 4, 2, 1, 1, 2, 1});
}

TEST_CASE("Pooling gradients match numerical gradients", "[nn][nn-pool][grad]") {
  Tensor x = test::RandomDouble({2, 5, 4, 3}, -1, 1, 11);  // distinct values: no ties
  for (std::string padding : {"SAME", "VALID"}) {
    INFO(padding);
    CHECK(test::MaxGradientError(
              [&](const Scope& s, Xs xs) { return ops::MaxPool(s, xs[0], {3, 2}, {2, 1}, padding); },
              {x}) < 1e-8);
    CHECK(test::MaxGradientError(
              [&](const Scope& s, Xs xs) { return ops::AvgPool(s, xs[0], {3, 2}, {2, 1}, padding); },
              {x}) < 1e-8);
  }
}

TEST_CASE("Pooling reports bad ranks, attrs and gradient shapes", "[nn][nn-pool][errors]") {
  AttrMap attrs = {{"T", DataType::kFloat},
                   {"ksize", std::vector<int64_t>{1, 2, 2, 1}},
                   {"strides", std::vector<int64_t>{1, 2, 2, 1}},
                   {"padding", std::string("VALID")}};
  auto ok = test::InferShapes("MaxPool", "pool1", attrs, {TensorShape{64, 28, 28, 6}});
  REQUIRE(ok.ok());
  CHECK(*(*ok)[0] == TensorShape({64, 14, 14, 6}));
  auto rank = test::InferShapes("MaxPool", "pool1", attrs, {TensorShape{28, 28, 6}});
  REQUIRE_FALSE(rank.ok());
  CHECK(rank.status().message() == "MaxPool 'pool1': input must be 4-D NHWC, got shape [28,28,6]");
  attrs["ksize"] = std::vector<int64_t>{1, 2, 2};
  auto ksize = test::InferShapes("AvgPool", "p", attrs, {TensorShape{1, 4, 4, 1}});
  REQUIRE_FALSE(ksize.ok());
  CHECK_THAT(ksize.status().message(),
             Catch::Contains("AvgPool 'p': ksize must have 4 entries [1, rows, cols, 1], got [1,2,2]"));

  Status st = test::RunOpError(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{
            ops::MaxPoolGrad(s.WithOpName("mpg"), in[0], in[1], in[1], {2, 2}, {2, 2}, "VALID")};
      },
      {test::RandomTensor<float>({1, 4, 4, 1}), test::RandomTensor<float>({1, 3, 3, 1})});
  CHECK_THAT(st.message(), Catch::Contains("MaxPoolGrad 'mpg'"));
  CHECK_THAT(st.message(),
             Catch::Contains("orig_output must have the pooled shape [1,2,2,1], got shape [1,3,3,1]"));
}

}  // namespace
}  // namespace fb
