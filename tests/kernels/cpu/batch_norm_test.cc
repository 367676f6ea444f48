// FusedBatchNorm and FusedBatchNormGrad (engine/ops/nn_ops_batch_norm.cc): reference values
// computed with NumPy (float64, x [2,2,2,3] = sin(0.7 i) * 2 + [0.5, -1, 3][i % 3],
// dy = cos(1.3 i), epsilon 1e-3; the script is in the comment of kX), gradients checked against
// central differences in float64 (tests/gradient_checker.h) in both modes, a large float input
// against a double computation in the test, and the shape function's errors.
#include <cmath>

#include "engine/autodiff/gradient_registry.h"
#include "engine/client/nn_ops.h"
#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/math_test_util.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::D;
using test::F;
using Xs = std::vector<Output>;

// import numpy as np; i = np.arange(24.0); C = 3
// x = (np.sin(i * .7) * 2 + np.array([.5, -1., 3.])[i.astype(int) % C]).reshape(2, 2, 2, C)
// m = x.reshape(-1, C).mean(0); v = x.reshape(-1, C).var(0)
// y = (x - m) / np.sqrt(v + 1e-3) * scale + offset, and so on (see each test).
const std::vector<double> kX = {0.5,
                                0.28843537447538203,
                                4.97089945997692,
                                2.2264187332977476,
                                -0.3300236996881898,
                                2.29843354462076,
                                -1.2431515448271753,
                                -2.9649052252486654,
                                1.737466724255357,
                                0.5336278009686994,
                                0.3139731974375781,
                                4.976336467754001,
                                2.209197816176563,
                                -0.36180327530129563,
                                2.2670417414961466,
                                -1.2593915199433399,
                                -2.958355458302635,
                                1.7637257755259308,
                                0.5672460944422734,
                                0.33913952439320205,
                                4.9812147113897405,
                                2.1914936622858687,
                                -0.39376328650859205,
                                2.2358571656319883};
// dy = np.cos(i * 1.3)
const std::vector<double> kDy = {1.0,
                                 0.2674988286245874,
                                 -0.8568887533689472,
                                 -0.72593230420014,
                                 0.4685166713003771,
                                 0.9765876257280236,
                                 0.05395542056264886,
                                 -0.947721602131112,
                                 -0.5609842574272287,
                                 0.6475963386538772,
                                 0.907446781450196,
                                 -0.16211443649971827,
                                 -0.9941776251838153,
                                 -0.36976826386316985,
                                 0.7963524702919232,
                                 0.7958149698139442,
                                 -0.3705933258376415,
                                 -0.9940815309292617,
                                 -0.16123796432418536,
                                 0.9078195977561951,
                                 0.6469193223286402,
                                 -0.5617192758811498,
                                 -0.9474378189567576,
                                 0.054842262350017955};
const TensorShape kShape{2, 2, 2, 3};
const Tensor kScale = D({1.5, 0.5, -2.0}, {3});
const Tensor kOffset = D({0.1, -0.2, 0.3}, {3});
// Inference mode's population statistics.
const Tensor kPopMean = D({0.2, -0.5, 2.5}, {3});
const Tensor kPopVar = D({1.5, 0.7, 2.0}, {3});

ops::FusedBatchNormAttrs Attrs(bool is_training) {
  ops::FusedBatchNormAttrs a;
  a.epsilon = 1e-3f;
  a.is_training = is_training;
  return a;
}

std::vector<Tensor> RunForward(bool is_training, const Tensor& mean, const Tensor& var) {
  return test::RunOpOk(
      [&](const Scope& s, const Xs& in) {
        auto bn = ops::FusedBatchNorm(s, in[0], in[1], in[2], in[3], in[4], Attrs(is_training));
        return Xs{bn.y, bn.batch_mean, bn.batch_variance, bn.reserve_space_1, bn.reserve_space_2};
      },
      {D(kX, kShape), kScale, kOffset, mean, var});
}

TEST_CASE("FusedBatchNorm training normalizes with the batch mean and biased variance",
          "[nn][batch_norm]") {
  // Training ignores the mean and variance inputs: empty [0] as TensorFlow allows, or [C].
  for (const Tensor& stats : {D({}, {0}), kPopMean}) {
    std::vector<Tensor> out = RunForward(true, stats, stats.NumElements() ? kPopVar : stats);
    test::ExpectClose(
        out[0],
        D({-0.13998575822034445,  0.20084911829329155,   -2.2482656401291274, 1.7809881773008427,
           -0.035965318928783435, 1.4996980119042995,    -2.0795781749918016, -1.0448889675410036,
           2.2864183366221167,    -0.10256834150454425,  0.21062781736218084, -2.2558906980979607,
           1.7618265844047925,    -0.048134050261818384, 1.5437230213185587,  -2.097648280644602,
           -1.0423809933870831,   2.249591685575427,     -0.0651615037114445, 0.22026426673112737,
           -2.262732124859461,    1.7421272973671016,    -0.0603718722679118, 1.5874574076661456},
          kShape),
        1e-8, 1e-9);
    const Tensor mean = D({0.7156801303000797, -0.7584128560929019, 3.1538719488313554}, {3});
    test::ExpectClose(out[1], mean, 1e-12, 1e-12);
    test::ExpectClose(out[3], mean, 1e-12, 1e-12);
    // batch_variance is Bessel-corrected (M = 8): v * 8 / 7; the reserve space keeps v.
    test::ExpectClose(out[2], D({2.075796424729279, 1.9475237227457345, 2.3231216337773377}, {3}),
                      1e-12, 1e-12);
    test::ExpectClose(out[4], D({1.8163218716381189, 1.7040832574025178, 2.0327314295551706}, {3}),
                      1e-12, 1e-12);
  }
}

TEST_CASE("FusedBatchNorm inference uses the given mean and variance", "[nn][batch_norm]") {
  std::vector<Tensor> out = RunForward(false, kPopMean, kPopVar);
  // y = (x - pop_mean) / sqrt(pop_var + 1e-3) * scale + offset
  test::ExpectClose(
      out[0],
      D({0.4673010481335802,   0.27084406093330765,  -3.193506260139468,   2.581019082325949,
         -0.09849221116634325, 0.5849867771261217,   -1.6669035834353898,  -1.6720115606736377,
         1.378115405150256,    0.5084728032743493,   0.28609493964853167,  -3.2011934287245616,
         2.55993487929784,     -0.11747058900278706, 0.6293703963341359,   -1.6867867830414918,
         -1.6681001191441556,  1.3409887792049293,   0.5496329180387027,   0.3011239654459165,
         -3.2080905829617077,  2.5382590316966067,   -0.13655672079174996, 0.6734610251783579},
        kShape),
      1e-8, 1e-9);
  for (int i : {1, 3}) test::ExpectEqual(out[i], kPopMean);
  for (int i : {2, 4}) test::ExpectEqual(out[i], kPopVar);
}

std::vector<Tensor> RunGrad(bool is_training) {
  std::vector<Tensor> fwd = RunForward(is_training, kPopMean, kPopVar);
  return test::RunOpOk(
      [&](const Scope& s, const Xs& in) {
        auto g = ops::FusedBatchNormGrad(s, in[0], in[1], in[2], in[3], in[4], Attrs(is_training));
        return Xs{g.x_backprop, g.scale_backprop, g.offset_backprop, g.reserve_space_3,
                  g.reserve_space_4};
      },
      {D(kDy, kShape), D(kX, kShape), kScale, fwd[3], fwd[4]});
}

TEST_CASE("FusedBatchNormGrad matches NumPy in training mode", "[nn][batch_norm]") {
  // inv = 1 / sqrt(v + eps); xh = (x - m) * inv; db = sum(dy); dg = sum(dy * xh);
  // dx = scale * inv / M * (M * dy - db - xh * dg)
  std::vector<Tensor> g = RunGrad(true);
  test::ExpectClose(
      g[0],
      D({1.0160427932871872,   -0.036490851864676155, 1.1708770081945803,   -0.19120357539670244,
         0.12493382594509261,  -1.3806963454447567,   -0.7567130025349033,  -0.057555894633078385,
         0.7797984389725261,   0.6378174253675434,    0.20506461831615638,  0.19645996865948545,
         -0.49679223837805775, -0.19171461159904704,  -1.1276958734899627,  0.06204012065973548,
         0.1625381539090876,   1.3869956833806494,    -0.24827902252399378, 0.20177081964996432,
         -0.9381945471664223,  -0.022912500480809027, -0.4085460597234993,  -0.08754433310609953},
        kShape),
      1e-8, 1e-9);
  test::ExpectClose(g[1], D({-4.003938940986817, 3.725365607381633, -0.06015136286031208}, {3}),
                    1e-8, 1e-9);
  test::ExpectClose(g[2], D({0.05429955944117992, -0.08423913165732533, -0.09936729752655074}, {3}),
                    1e-10, 1e-12);
  CHECK(g[3].shape() == TensorShape{0});
  CHECK(g[4].shape() == TensorShape{0});
}

TEST_CASE("FusedBatchNormGrad matches NumPy in inference mode", "[nn][batch_norm]") {
  // dx = dy * scale / sqrt(pop_var + eps); dg = sum(dy * (x - pop_mean) / sqrt(pop_var + eps))
  std::vector<Tensor> g = RunGrad(false);
  test::ExpectClose(
      g[0],
      D({1.2243368271119341,   0.1597470621461015,   1.2115208540963798,   -0.8887856540224548,
         0.27979248429436515,  -1.3807583187085477,  0.06605960841716353,  -0.5659678677894814,
         0.7931532815908342,   0.7928760465167937,   0.5419162324409518,   0.2292071401302739,
         -1.21720827920323,    -0.22082113080915536, -1.1259310163386211,  0.974345575110184,
         -0.22131384783220923, 1.4054922539919292,   -0.19740957765066033, 0.5421388738256253,
         -0.9146534446129982,  -0.6877335959599401,  -0.5657983959132017,  -0.07753928880691421},
        kShape),
      1e-8, 1e-9);
  test::ExpectClose(g[1], D({-4.382825510314561, 5.8360874253021775, -0.10657304417144713}, {3}),
                    1e-8, 1e-9);
  test::ExpectClose(g[2], D({0.05429955944117992, -0.08423913165732533, -0.09936729752655074}, {3}),
                    1e-10, 1e-12);
}

TEST_CASE("FusedBatchNorm gradients w.r.t. x, scale and offset match central differences",
          "[nn][batch_norm][grad]") {
  const Tensor x = test::RandomDouble({2, 3, 2, 4}, -2, 2, 3);
  const Tensor scale = test::RandomDouble({4}, 0.5, 1.5, 4);
  const Tensor offset = test::RandomDouble({4}, -1, 1, 5);
  for (bool training : {true, false}) {
    INFO("is_training " << training);
    const double err = test::MaxGradientError(
        [&](const Scope& s, const Xs& in) {
          Output mean = ops::Const(s, training ? D({}, {0}) : D({0.1, -0.2, 0.3, 0}, {4}));
          Output var = ops::Const(s, training ? D({}, {0}) : D({0.5, 1.5, 1, 2}, {4}));
          return ops::FusedBatchNorm(s, in[0], in[1], in[2], mean, var, Attrs(training)).y;
        },
        {x, scale, offset});
    CHECK(err < 1e-6);
  }
}

TEST_CASE("FusedBatchNorm on a large float input matches a double computation",
          "[nn][batch_norm]") {
  // [4, 16, 16, 64]: several row blocks on the intra-op pool; values around 1000 (mean far from
  // 0, small spread) test the variance's cancellation.
  const TensorShape shape{4, 16, 16, 64};
  Tensor x = test::RandomTensor<float>(shape, 999, 1001, 11);
  Tensor dy = test::RandomTensor<float>(shape, -1, 1, 12);
  Tensor scale = test::RandomTensor<float>({64}, 0.5, 2, 13);
  Tensor offset = test::RandomTensor<float>({64}, -1, 1, 14);
  std::vector<Tensor> out = test::RunOpOk(
      [&](const Scope& s, const Xs& in) {
        auto bn = ops::FusedBatchNorm(s, in[0], in[1], in[2], in[3], in[3]);
        auto g =
            ops::FusedBatchNormGrad(s, in[4], in[0], in[1], bn.reserve_space_1, bn.reserve_space_2);
        return Xs{bn.y, bn.batch_variance, g.x_backprop, g.scale_backprop};
      },
      {x, scale, offset, F({}, {0}), dy});
  const int64_t rows = 4 * 16 * 16, c = 64;
  for (int64_t ch = 0; ch < c; ch += 7) {
    double m = 0, v = 0, sdy = 0, sdyxh = 0;
    for (int64_t r = 0; r < rows; ++r) m += x.data<float>()[r * c + ch];
    m /= rows;
    for (int64_t r = 0; r < rows; ++r) v += std::pow(x.data<float>()[r * c + ch] - m, 2);
    v /= rows;
    const double inv = 1 / std::sqrt(v + 1e-4), g = scale.data<float>()[ch];
    for (int64_t r = 0; r < rows; ++r) {
      sdy += dy.data<float>()[r * c + ch];
      sdyxh += dy.data<float>()[r * c + ch] * (x.data<float>()[r * c + ch] - m) * inv;
    }
    CHECK(out[1].data<float>()[ch] == Approx(v * rows / (rows - 1)).epsilon(1e-4));
    CHECK(out[3].data<float>()[ch] == Approx(sdyxh).margin(2e-3));
    for (int64_t r = 0; r < rows; r += 37) {
      const int64_t i = r * c + ch;
      const double xh = (x.data<float>()[i] - m) * inv;
      CHECK(out[0].data<float>()[i] == Approx(xh * g + offset.data<float>()[ch]).margin(1e-3));
      const double dx = g * inv / rows * (rows * dy.data<float>()[i] - sdy - xh * sdyxh);
      CHECK(out[2].data<float>()[i] == Approx(dx).margin(1e-3 * g * inv));
    }
  }
}

TEST_CASE("FusedBatchNorm of an empty batch gives NaN statistics", "[nn][batch_norm]") {
  std::vector<Tensor> out = test::RunOpOk(
      [&](const Scope& s, const Xs& in) {
        auto bn = ops::FusedBatchNorm(s, in[0], in[1], in[2], in[3], in[3]);
        return Xs{bn.y, bn.batch_mean, bn.batch_variance};
      },
      {F({}, {0, 2, 2, 2}), F({1, 1}, {2}), F({0, 0}, {2}), F({}, {0})});
  CHECK(out[0].shape() == TensorShape{0, 2, 2, 2});
  CHECK(std::isnan(out[1].data<float>()[0]));
  CHECK(std::isnan(out[2].data<float>()[1]));
}

std::string ShapeError(const std::string& op, AttrMap attrs, const std::vector<PartialShape>& in) {
  auto r = test::InferShapes(op, "bn1", std::move(attrs), in);
  REQUIRE_FALSE(r.ok());
  return r.status().message();
}

TEST_CASE("FusedBatchNorm shape function checks ranks, channels and data_format",
          "[nn][batch_norm]") {
  using S = TensorShape;
  auto ok = test::InferShapes("FusedBatchNorm", "bn1", {{"T", DataType::kFloat}},
                              {S{2, 5, 5, -1}, S{3}, S{-1}, S{0}, S{0}});
  REQUIRE(ok.ok());
  CHECK((*ok)[0] == PartialShape(S{2, 5, 5, 3}));
  CHECK((*ok)[2] == PartialShape(S{3}));
  AttrMap t = {{"T", DataType::kFloat}};
  CHECK_THAT(ShapeError("FusedBatchNorm", t, {S{2, 5, 5, 3}, S{4}, S{3}, S{0}, S{0}}),
             Catch::Contains("'bn1'") && Catch::Contains("scale must have 3 elements"));
  CHECK_THAT(ShapeError("FusedBatchNorm", t, {S{2, 5, 5, 3}, S{3}, S{3}, S{2}, S{0}}),
             Catch::Contains("mean must have 3 elements"));
  CHECK_THAT(ShapeError("FusedBatchNorm", t, {S{5, 5, 3}, S{3}, S{3}, S{0}, S{0}}),
             Catch::Contains("x must be 4-D NHWC") && Catch::Contains("[5,5,3]"));
  // Inference needs the statistics: an empty variance is an error.
  AttrMap inference = {{"T", DataType::kFloat}, {"is_training", false}};
  CHECK_THAT(ShapeError("FusedBatchNorm", inference, {S{2, 5, 5, 3}, S{3}, S{3}, S{3}, S{0}}),
             Catch::Contains("variance must have 3 elements") && Catch::Contains("[0]"));
  AttrMap nchw = {{"T", DataType::kFloat}, {"data_format", std::string("NCHW")}};
  CHECK_THAT(ShapeError("FusedBatchNorm", nchw, {S{2, 3, 5, 5}, S{3}, S{3}, S{0}, S{0}}),
             Catch::Contains("FusedBatchNorm 'bn1'") && Catch::Contains("NCHW"));
  CHECK_THAT(ShapeError("FusedBatchNormGrad", t, {S{2, 5, 5, 3}, S{2, 5, 4, 3}, S{3}, S{3}, S{3}}),
             Catch::Contains("y_backprop has shape [2,5,5,3] but x has [2,5,4,3]"));
  CHECK_THAT(ShapeError("FusedBatchNormGrad", t, {S{2, 5, 5, 3}, S{2, 5, 5, 3}, S{3}, S{3}, S{2}}),
             Catch::Contains("reserve_space_2 must have 3 elements"));
}

TEST_CASE("FusedBatchNorm kernel rejects inputs of unknown graph shape that do not fit",
          "[nn][batch_norm]") {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
  Output scale = ops::Placeholder(root.WithOpName("scale"), DataType::kFloat);
  Output zero = ops::Const(root, F({0, 0}, {2}));
  auto bn = ops::FusedBatchNorm(root.WithOpName("bn_node"), x, scale, zero, zero, zero);
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  Status s = session->Run({{x.name(), F({1, 2, 3, 4}, {1, 1, 2, 2})}, {scale.name(), F({1}, {1})}},
                          {bn.y.name()}, {}, &out);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(),
             Catch::Contains("bn_node") && Catch::Contains("scale must be 1-D with 2"));
}

TEST_CASE("FusedBatchNorm kernels reject data_format NCHW naming the node", "[nn][batch_norm]") {
  ops::FusedBatchNormAttrs nchw;
  nchw.data_format = "NCHW";
  Status s = test::RunOpError(
      [&](const Scope& sc, const Xs& in) {
        return Xs{
            ops::FusedBatchNorm(sc.WithOpName("bn_nchw"), in[0], in[1], in[1], in[2], in[2], nchw)
                .y};
      },
      {F({1, 2, 3, 4}, {1, 2, 1, 2}), F({1, 1}, {2}), F({}, {0})});
  CHECK_THAT(s.message(), Catch::Contains("bn_nchw") && Catch::Contains("NCHW"));
  s = test::RunOpError(
      [&](const Scope& sc, const Xs& in) {
        return Xs{ops::FusedBatchNormGrad(sc.WithOpName("bn_grad_nchw"), in[0], in[0], in[1], in[1],
                                          in[1], nchw)
                      .x_backprop};
      },
      {F({1, 2, 3, 4}, {1, 2, 1, 2}), F({1, 1}, {2})});
  CHECK_THAT(s.message(), Catch::Contains("bn_grad_nchw") && Catch::Contains("NCHW"));
}

TEST_CASE("FusedBatchNorm and its gradient are registered", "[nn][batch_norm]") {
  CHECK(OpRegistry::Global()->LookUp("FusedBatchNorm").ok());
  CHECK(OpRegistry::Global()->LookUp("FusedBatchNormGrad").ok());
  CHECK(GradientRegistry::Global()->Lookup("FusedBatchNorm") != nullptr);
}

}  // namespace
}  // namespace fb
