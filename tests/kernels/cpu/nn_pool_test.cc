// MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad: hand-computed values on a 4x4 ramp, numerical
// gradient checks in float64, and shape errors.
#include <limits>

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

// MaxPoolGrad by the definition, one window and channel at a time: the first maximum in
// row-major window order receives the window's gradient (no NaN in these inputs).
std::vector<double> ReferenceMaxPoolGrad(const Tensor& x, const Tensor& g, int64_t k, int64_t st,
                                         bool same) {
  const int64_t n = x.dim_size(0), h = x.dim_size(1), w = x.dim_size(2), d = x.dim_size(3);
  const int64_t oh = g.dim_size(1), ow = g.dim_size(2);
  const int64_t pad_h = same ? std::max<int64_t>(0, (oh - 1) * st + k - h) / 2 : 0;
  const int64_t pad_w = same ? std::max<int64_t>(0, (ow - 1) * st + k - w) / 2 : 0;
  std::vector<double> dx(x.NumElements(), 0.0);
  auto at = [&](int64_t b, int64_t i, int64_t j, int64_t c) {
    return ((b * h + i) * w + j) * d + c;
  };
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t c = 0; c < d; ++c) {
          int64_t arg = -1;
          for (int64_t r = i * st - pad_h; r < i * st - pad_h + k; ++r)
            for (int64_t q = j * st - pad_w; q < j * st - pad_w + k; ++q) {
              if (r < 0 || q < 0 || r >= h || q >= w) continue;
              if (arg < 0 || x.data<double>()[at(b, r, q, c)] > x.data<double>()[arg])
                arg = at(b, r, q, c);
            }
          dx[arg] += g.data<double>()[((b * oh + i) * ow + j) * d + c];
        }
  return dx;
}

TEST_CASE("MaxPoolGrad matches the definition on tie-heavy inputs of many channels",
          "[nn][nn-pool]") {
  // Values from {-1, 0, 1, 2} make most windows tie; depths 11 and 16 cover the kernel's groups
  // of 8 channels and their remainder.
  for (int64_t depth : {11, 16}) {
    Tensor x = test::RandomDouble({2, 9, 7, depth}, -1, 3, static_cast<int>(depth));
    x.flat<double>() = x.flat<double>().floor();
    for (bool same : {true, false}) {
      const std::string padding = same ? "SAME" : "VALID";
      INFO("depth " << depth << " " << padding);
      Tensor y = Pool(true, x, {3, 3}, {2, 2}, padding);
      Tensor g = test::RandomDouble(y.shape(), -1, 1, 5);
      Tensor dx = RunOpOk(
          [&](const Scope& s, Xs in) {
            return std::vector<Output>{
                ops::MaxPoolGrad(s, in[0], in[1], in[2], {3, 3}, {2, 2}, padding)};
          },
          {x, y, g})[0];
      CHECK(Values<double>(dx) == ReferenceMaxPoolGrad(x, g, 3, 2, same));
    }
  }
}

TEST_CASE("MaxPoolGrad of non-overlapping windows matches the definition", "[nn][nn-pool]") {
  // 2x2 windows with strides 2 and 3 (LeNet's pools), tie-heavy, depths 1, 6 and 11.
  for (int64_t depth : {1, 6, 11})
    for (int64_t stride : {2, 3})
      for (bool same : {true, false}) {
        Tensor x = test::RandomDouble({2, 9, 7, depth}, -1, 3, static_cast<int>(depth + stride));
        x.flat<double>() = x.flat<double>().floor();
        const std::string padding = same ? "SAME" : "VALID";
        INFO("depth " << depth << " stride " << stride << " " << padding);
        Tensor y = Pool(true, x, {2, 2}, {stride, stride}, padding);
        Tensor g = test::RandomDouble(y.shape(), -1, 1, 5);
        Tensor dx = RunOpOk(
            [&](const Scope& s, Xs in) {
              return std::vector<Output>{ops::MaxPoolGrad(s, in[0], in[1], in[2], {2, 2},
                                                          {stride, stride}, padding)};
            },
            {x, y, g})[0];
        CHECK(Values<double>(dx) == ReferenceMaxPoolGrad(x, g, 2, stride, same));
      }
  // A window's first NaN receives its gradient (as in the overlapping path).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (auto [values, want] : {std::pair{std::vector<float>{1, nan, 5, nan}, 1},
                              std::pair{std::vector<float>{nan, 7, nan, 9}, 0},
                              std::pair{std::vector<float>{1, 9, 9, 2}, 1}}) {
    Tensor x = Tensor::FromVector<float>(values, {1, 2, 2, 1});
    Tensor dx = RunOpOk(
        [](const Scope& s, Xs in) {
          Output y = ops::MaxPool(s, in[0], {2, 2}, {2, 2}, "VALID");
          return std::vector<Output>{ops::MaxPoolGrad(s, in[0], y, in[1], {2, 2}, {2, 2}, "VALID")};
        },
        {x, Tensor::FromVector<float>({3}, {1, 1, 1, 1})})[0];
    std::vector<float> expected(4, 0.f);
    expected[want] = 3;
    CHECK(Values<float>(dx) == expected);
  }
}

}  // namespace
}  // namespace fb
