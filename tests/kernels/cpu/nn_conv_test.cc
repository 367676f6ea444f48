// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter: small cases computed by hand, random
// cases against a direct (seven-loop) convolution written here, the backprops against the
// direct adjoints, numerical gradient checks in float64, and shape/attr errors.
#include "engine/ops/nn_ops_common.h"
#include "kernels/cpu/conv_kernels.h"
#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using ops::Window2D;
using test::RunOpOk;
using test::Values;
using Xs = const std::vector<Output>&;

// Input [1, n, n, 1] with x[i][j] = n * i + j.
Tensor Ramp(int64_t n) {
  std::vector<float> v(n * n);
  for (int64_t i = 0; i < n * n; ++i) v[i] = static_cast<float>(i);
  return Tensor::FromVector<float>(v, {1, n, n, 1});
}

Tensor Ones3x3(int64_t out_depth) {
  std::vector<float> v(9 * out_depth);
  for (int64_t i = 0; i < 9; ++i)
    for (int64_t o = 0; o < out_depth; ++o) v[i * out_depth + o] = static_cast<float>(o + 1);
  return Tensor::FromVector<float>(v, {3, 3, 1, out_depth});
}

std::vector<Tensor> Conv(const Tensor& x, const Tensor& w, Window2D strides,
                         const std::string& padding, Window2D dilations = {}) {
  return RunOpOk(
      [&](const Scope& s, Xs in) {
        return std::vector<Output>{ops::Conv2D(s, in[0], in[1], strides, padding, dilations)};
      },
      {x, w});
}

TEST_CASE("Conv2D VALID stride 2 sums each 3x3 window (hand-computed)", "[nn][nn-conv]") {
  // Windows start at rows/cols 0 and 2 of the 5x5 ramp; a 3x3 window starting at (r, c) sums to
  // 9 * (5 * (r + 1) + (c + 1)). Output channel 2 uses a filter of 2s.
  auto out = Conv(Ramp(5), Ones3x3(2), {2, 2}, "VALID");
  CHECK(out[0].shape() == TensorShape({1, 2, 2, 2}));
  CHECK(Values<float>(out[0]) == std::vector<float>{54, 108, 72, 144, 144, 288, 162, 324});
}

TEST_CASE("Conv2D SAME stride 2 pads after (hand-computed)", "[nn][nn-conv]") {
  // 4x4 ramp, 3x3 ones, stride 2: 2x2 output, pad_total = 1 so padding is one row/col after.
  // Windows cover rows {0,1,2} or {2,3} and cols likewise.
  auto out = Conv(Ramp(4), Ones3x3(1), {2, 2}, "SAME");
  CHECK(out[0].shape() == TensorShape({1, 2, 2, 1}));
  CHECK(Values<float>(out[0]) == std::vector<float>{45, 39, 66, 50});
}

// Direct convolution (TensorFlow semantics) for reference.
Tensor DirectConv(const Tensor& x, const Tensor& w, const Conv2DShape& s) {
  Tensor y(DataType::kDouble, TensorShape(s.OutputDims()));
  y.flat<double>().setZero();
  auto X = [&](int64_t n, int64_t i, int64_t j, int64_t c) {
    return x.data<double>()[((n * s.rows.in + i) * s.cols.in + j) * s.in_depth + c];
  };
  for (int64_t n = 0; n < s.batch; ++n)
    for (int64_t oh = 0; oh < s.rows.out; ++oh)
      for (int64_t ow = 0; ow < s.cols.out; ++ow)
        for (int64_t kh = 0; kh < s.rows.window; ++kh)
          for (int64_t kw = 0; kw < s.cols.window; ++kw) {
            int64_t i = oh * s.rows.stride - s.rows.pad_before + kh * s.rows.dilation;
            int64_t j = ow * s.cols.stride - s.cols.pad_before + kw * s.cols.dilation;
            if (i < 0 || j < 0 || i >= s.rows.in || j >= s.cols.in) continue;
            for (int64_t c = 0; c < s.in_depth; ++c)
              for (int64_t o = 0; o < s.out_depth; ++o)
                y.data<double>()[((n * s.rows.out + oh) * s.cols.out + ow) * s.out_depth + o] +=
                    X(n, i, j, c) *
                    w.data<double>()[((kh * s.cols.window + kw) * s.in_depth + c) * s.out_depth + o];
          }
  return y;
}

struct ConvCase {
  std::vector<int64_t> input, filter;
  Window2D strides, dilations;
  std::string padding;
};

const std::vector<ConvCase>& Cases() {
  static const std::vector<ConvCase> cases = {
      {{2, 7, 6, 3}, {3, 2, 3, 4}, {1, 1}, {1, 1}, "SAME"},
      {{2, 7, 6, 3}, {3, 3, 3, 2}, {2, 3}, {1, 1}, "SAME"},
      {{3, 8, 9, 2}, {2, 3, 2, 5}, {2, 2}, {1, 1}, "VALID"},
      {{1, 9, 9, 2}, {3, 3, 2, 3}, {1, 1}, {2, 2}, "SAME"},
      {{2, 9, 8, 1}, {3, 2, 1, 2}, {1, 2}, {2, 3}, "VALID"},
      {{2, 4, 5, 3}, {1, 1, 3, 4}, {1, 1}, {1, 1}, "VALID"},  // the direct-GEMM path
      {{2, 5, 5, 3}, {1, 1, 3, 2}, {2, 2}, {1, 1}, "SAME"},
      // Images whose float64 patch matrix (2.6 and 3.4 MiB) exceeds kBlockPatchBytes are split
      // into bands of output rows (conv_kernels.h): 2 bands of 40 rows; 2 bands of 16 + 15 rows
      // whose 5-row windows overlap in col2im, 6 blocks summed in 4 filter-gradient groups.
      {{2, 80, 30, 16}, {3, 3, 16, 2}, {1, 1}, {1, 1}, "SAME"},
      {{3, 61, 80, 12}, {5, 3, 12, 3}, {2, 1}, {1, 1}, "SAME"},
      // A 1x1 filter on the input itself, split into 4 filter-gradient groups of rows.
      {{5, 30, 30, 64}, {1, 1, 64, 2}, {1, 1}, {1, 1}, "VALID"},
  };
  return cases;
}

Conv2DShape GeometryOf(const ConvCase& c) {
  Window2DAttrs a;
  a.stride_rows = c.strides.rows, a.stride_cols = c.strides.cols;
  a.dilation_rows = c.dilations.rows, a.dilation_cols = c.dilations.cols;
  a.padding = c.padding == "SAME" ? Padding::kSame : Padding::kValid;
  auto s = ComputeConv2DShape(c.input, c.filter, a);
  REQUIRE(s.ok());
  return *s;
}

TEST_CASE("Conv2D matches a direct convolution over strides, dilations and padding",
          "[nn][nn-conv]") {
  int seed = 1;
  for (const ConvCase& c : Cases()) {
    Conv2DShape s = GeometryOf(c);
    Tensor x = test::RandomDouble(TensorShape(c.input), -1, 1, seed++);
    Tensor w = test::RandomDouble(TensorShape(c.filter), -1, 1, seed++);
    INFO("input " << DimsString(c.input) << " filter " << DimsString(c.filter) << " " << c.padding);
    test::ExpectClose(Conv(x, w, c.strides, c.padding, c.dilations)[0], DirectConv(x, w, s),
                      1e-10, 1e-12);
  }
}

TEST_CASE("Conv2D patch blocks cover every patch row once, in order, within the size target",
          "[nn][nn-conv]") {
  for (const ConvCase& c : Cases()) {
    Conv2DShape s = GeometryOf(c);
    INFO("input " << DimsString(c.input) << " filter " << DimsString(c.filter));
    for (bool is_double : {false, true}) {
      nn::PatchBlocks p =
          is_double ? nn::PartitionPatches<double>(s) : nn::PartitionPatches<float>(s);
      int64_t next = 0, largest = 0;
      for (int64_t b = 0; b < p.num_blocks; ++b) {
        nn::PatchBlock k = nn::BlockAt(s, p, b);
        CHECK(k.first_patch == next);
        CHECK(k.num_patches > 0);
        next += k.num_patches, largest = std::max(largest, k.num_patches);
      }
      CHECK(next == s.batch * nn::PatchesPerImage(s));
      CHECK(largest == p.max_patches);
      const int64_t bytes = p.max_patches * nn::PatchSize(s) * (is_double ? 8 : 4);
      CHECK((bytes <= nn::kBlockPatchBytes || p.max_patches <= nn::kMinBlockPatches ||
             p.rows_per_block == 1));
    }
  }
  // The large float64 images are split into balanced bands (their sizes differ by at most one
  // row); 16 small images into 4 blocks of 4, not 5 + 5 + 5 + 1.
  for (int i : {7, 8}) {
    Conv2DShape s = GeometryOf(Cases()[i]);
    nn::PatchBlocks p = nn::PartitionPatches<double>(s);
    CHECK(p.SplitsImages());
    nn::PatchBlock last = nn::BlockAt(s, p, p.blocks_per_image - 1);
    CHECK(last.row_end == s.rows.out);
    CHECK(p.rows_per_block - (last.row_end - last.row_begin) <= 1);
  }
  ConvCase small{{16, 14, 14, 480}, {1, 1, 480, 192}, {1, 1}, {1, 1}, "SAME"};
  nn::PatchBlocks p = nn::PartitionPatches<float>(GeometryOf(small));
  CHECK(p.num_blocks == 4);
  CHECK(p.images_per_block == 4);
}

TEST_CASE("Conv2D backprops are the adjoints of Conv2D", "[nn][nn-conv]") {
  // <Conv2D(x, w), g> = <x, BackpropInput(g)> = <w, BackpropFilter(x, g)> for all x, w, g.
  int seed = 100;
  for (const ConvCase& c : Cases()) {
    Conv2DShape s = GeometryOf(c);
    Tensor x = test::RandomDouble(TensorShape(c.input), -1, 1, seed++);
    Tensor w = test::RandomDouble(TensorShape(c.filter), -1, 1, seed++);
    Tensor g = test::RandomDouble(TensorShape(s.OutputDims()), -1, 1, seed++);
    std::vector<int32_t> in_sizes(c.input.begin(), c.input.end());
    std::vector<int32_t> f_sizes(c.filter.begin(), c.filter.end());
    auto out = RunOpOk(
        [&](const Scope& sc, Xs in) {
          return std::vector<Output>{
              ops::Conv2D(sc, in[0], in[1], c.strides, c.padding, c.dilations),
              ops::Conv2DBackpropInput(sc, in[3], in[1], in[2], c.strides, c.padding, c.dilations),
              ops::Conv2DBackpropFilter(sc, in[0], in[4], in[2], c.strides, c.padding,
                                        c.dilations)};
        },
        {x, w, g, Tensor::FromVector<int32_t>(in_sizes), Tensor::FromVector<int32_t>(f_sizes)});
    INFO("input " << DimsString(c.input) << " filter " << DimsString(c.filter) << " " << c.padding);
    REQUIRE(out[1].shape() == x.shape());
    REQUIRE(out[2].shape() == w.shape());
    double forward = test::Dot<double>(out[0], g);
    CHECK(test::Dot<double>(x, out[1]) == Approx(forward).epsilon(1e-10));
    CHECK(test::Dot<double>(w, out[2]) == Approx(forward).epsilon(1e-10));
  }
}

TEST_CASE("Conv2D float kernels agree with float64", "[nn][nn-conv]") {
  const ConvCase& c = Cases()[1];
  Tensor x = test::RandomTensor<float>(TensorShape(c.input));
  Tensor w = test::RandomTensor<float>(TensorShape(c.filter), -1, 1, 9);
  Tensor xd(DataType::kDouble, x.shape()), wd(DataType::kDouble, w.shape());
  xd.flat<double>() = x.flat<float>().cast<double>();
  wd.flat<double>() = w.flat<float>().cast<double>();
  Tensor y = Conv(x, w, c.strides, c.padding)[0];
  Tensor yd = DirectConv(xd, wd, GeometryOf(c));
  Tensor yf(DataType::kFloat, yd.shape());
  yf.flat<float>() = yd.flat<double>().cast<float>();
  test::ExpectClose(y, yf, 1e-5, 1e-5);
}

TEST_CASE("Conv2D gradients match numerical gradients", "[nn][nn-conv][grad]") {
  for (int k : {1, 3}) {
    const ConvCase& c = Cases()[k];
    INFO("case " << k);
    Tensor x = test::RandomDouble({1, 5, 4, c.input[3]}, -1, 1, 5);
    Tensor w = test::RandomDouble(TensorShape(c.filter), -1, 1, 6);
    double err = test::MaxGradientError(
        [&](const Scope& s, Xs xs) {
          return ops::Conv2D(s, xs[0], xs[1], c.strides, c.padding, c.dilations);
        },
        {x, w});
    CHECK(err < 1e-7);
  }
}

TEST_CASE("Conv2D shape function checks ranks, channels and attrs", "[nn][nn-conv][errors]") {
  AttrMap attrs = {{"T", DataType::kFloat},
                   {"strides", std::vector<int64_t>{1, 1, 1, 1}},
                   {"padding", std::string("SAME")}};
  auto ok = test::InferShapes("Conv2D", "conv1", attrs,
                              {TensorShape{-1, 28, 28, 1}, TensorShape{5, 5, 1, 6}});
  REQUIRE(ok.ok());
  CHECK((*ok)[0]->DebugString() == TensorShape({-1, 28, 28, 6}).DebugString());

  auto bad_rank = test::InferShapes("Conv2D", "conv1", attrs,
                                    {TensorShape{28, 28}, TensorShape{5, 5, 1, 6}});
  REQUIRE_FALSE(bad_rank.ok());
  CHECK(bad_rank.status().message() ==
        "Conv2D 'conv1': input must be 4-D NHWC, got shape [28,28]");

  auto bad_depth = test::InferShapes("Conv2D", "conv2", attrs,
                                     {TensorShape{8, 14, 14, 6}, TensorShape{5, 5, 3, 16}});
  REQUIRE_FALSE(bad_depth.ok());
  CHECK_THAT(bad_depth.status().message(),
             Catch::StartsWith("Conv2D 'conv2': input depth 6 does not match filter in_depth 3"));

  attrs["padding"] = std::string("VALID");
  auto too_small = test::InferShapes("Conv2D", "c", attrs,
                                     {TensorShape{1, 3, 8, 1}, TensorShape{5, 5, 1, 1}});
  REQUIRE_FALSE(too_small.ok());
  CHECK_THAT(too_small.status().message(),
             Catch::Contains("rows: window 5 (dilated 5) is larger than input size 3"));

  attrs["strides"] = std::vector<int64_t>{2, 1, 1, 1};
  auto bad_strides = test::InferShapes("Conv2D", "c", attrs,
                                       {TensorShape{1, 8, 8, 1}, TensorShape{5, 5, 1, 1}});
  REQUIRE_FALSE(bad_strides.ok());
  CHECK_THAT(bad_strides.status().message(),
             Catch::Contains("strides in the batch and depth dimensions must be 1, got [2,1,1,1]"));

  attrs["strides"] = std::vector<int64_t>{1, 1, 1, 1};
  attrs["padding"] = std::string("FULL");
  auto bad_padding = test::InferShapes("Conv2D", "c", attrs, {std::nullopt, std::nullopt});
  REQUIRE_FALSE(bad_padding.ok());
  CHECK_THAT(bad_padding.status().message(),
             Catch::Contains("padding must be \"SAME\" or \"VALID\", got \"FULL\""));
}

TEST_CASE("Conv2D kernels report bad shapes naming the node", "[nn][nn-conv][errors]") {
  Status st = test::RunOpError(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{ops::Conv2D(s.WithOpName("conv1"), in[0], in[1], {1, 1}, "SAME")};
      },
      {test::RandomTensor<float>({28, 28}), test::RandomTensor<float>({5, 5, 1, 6})});
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::StartsWith("Conv2D 'conv1'"));
  CHECK_THAT(st.message(), Catch::EndsWith("input must be 4-D NHWC, got shape [28,28]"));

  st = test::RunOpError(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{
            ops::Conv2DBackpropInput(s.WithOpName("bi"), in[0], in[1], in[2], {1, 1}, "VALID")};
      },
      {Tensor::FromVector<int32_t>({1, 6, 6, 1}), test::RandomTensor<float>({3, 3, 1, 2}),
       test::RandomTensor<float>({1, 5, 5, 2})});
  CHECK_THAT(st.message(), Catch::Contains("Conv2DBackpropInput 'bi'"));
  CHECK_THAT(st.message(), Catch::Contains("out_backprop has shape [1,5,5,2] but Conv2D of input "
                                           "[1,6,6,1] and filter [3,3,1,2] produces [1,4,4,2]"));

  st = test::RunOpError(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{
            ops::Conv2DBackpropFilter(s.WithOpName("bf"), in[0], in[1], in[2], {1, 1}, "VALID")};
      },
      {test::RandomTensor<float>({1, 6, 6, 1}), Tensor::FromVector<int32_t>({3, 3, 1}),
       test::RandomTensor<float>({1, 4, 4, 2})});
  CHECK_THAT(st.message(),
             Catch::Contains("filter_sizes must be a vector of 4 sizes, got shape [3]"));
}

}  // namespace
}  // namespace fb
