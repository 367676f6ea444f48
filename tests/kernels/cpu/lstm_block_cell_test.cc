// LSTMBlockCell and LSTMBlockCellGrad (engine/ops/rnn_ops_lstm.cc): forward values against NumPy
// (float64; the script is below), without and with peepholes and the cell clip, in float and
// double; the gradients of every input against central differences (tests/gradient_checker.h);
// shapes that do not fit fail naming the input, at graph construction and in the kernel.
#include "engine/client/math_ops.h"
#include "engine/client/rnn_ops.h"
#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/math_test_util.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::D;
using Xs = std::vector<Output>;

// import numpy as np; B, I, H, C = 2, 3, 2, 2; k = np.arange
// x = np.sin(k(B*I) * 0.9).reshape(B, I); cs_prev = (np.cos(k(B*C) * 1.1) * 2.5).reshape(B, C)
// h_prev = (np.sin(k(B*H) * 0.4 + 1) * 0.8).reshape(B, H)
// w = (np.cos(k((I+H)*4*C) * 0.37) * 0.9).reshape(I+H, 4*C); b = np.sin(k(4*C) * 0.5) * 0.3
// wci, wcf, wco = [0.3, -0.4], [-0.2, 0.5], [0.6, 0.1]; sig = lambda v: 1 / (1 + np.exp(-v))
// zi, zci, zf, zo = np.split(np.concatenate([x, h_prev], 1) @ w + b, 4, 1)
// i = sig(zi [+ wci*cs_prev]); f = sig(zf + forget_bias [+ wcf*cs_prev]); ci = np.tanh(zci)
// cs = ci*i + cs_prev*f [clipped]; o = sig(zo [+ wco*cs]); co = np.tanh(cs); h = co*o
// kPlain: no peepholes, no clip, forget_bias 1; kPeepholeClip: peepholes, clip 1, forget_bias 0.5.
const std::vector<double> kX = {0.0,
                                0.7833269096274835,
                                0.9738476308781954,
                                0.4273798802338298,
                                -0.44252044329485246,
                                -0.9775301176650971};
const std::vector<double> kCsPrev = {2.5, 1.1339903035639431, -1.4712527931383643,
                                     -2.468699424772162};
const std::vector<double> kHPrev = {0.6731767878463173, 0.7883597839907681, 0.7790781047025563,
                                    0.6467971230556722};
const std::vector<double> kW = {0.9,
                                0.8390946110454308,
                                0.6646217028566292,
                                0.4001953650675363,
                                0.0816044620178787,
                                -0.2480312221420617,
                                -0.5440970439521363,
                                -0.7665218833379089,
                                -0.8852015817306058,
                                -0.8840733987044086,
                                -0.7632900285393672,
                                -0.5391989337669164,
                                -0.24212979280565994,
                                0.08771047972963716,
                                0.4056795503019889,
                                0.668741796869769,
                                0.841292978440814,
                                0.8999791020636689,
                                0.8368572762150311,
                                0.6604707439056433,
                                0.39469259481695135,
                                0.07549465460645005,
                                -0.2539211329436009,
                                -0.5489698863476173,
                                -0.7697181409686404,
                                -0.8862886561205913,
                                -0.8829041594346599,
                                -0.7600227266598951,
                                -0.5342757832595023,
                                -0.2362171189959372,
                                0.0938124241791272,
                                0.41114489583552466,
                                0.67283083460848,
                                0.8434522763093094,
                                0.8999164092251726,
                                0.834581077851128,
                                0.6562891127867582,
                                0.3891714950981077,
                                0.06938134123394174,
                                -0.2597992516836514};
const std::vector<double> kB = {0.0,
                                0.14382766158126087,
                                0.25244129544236893,
                                0.29924849598121633,
                                0.27278922804770445,
                                0.17954164323118693,
                                0.042336002417960164,
                                -0.10523496830688596};
const std::vector<std::vector<double>> kPlain = {
    {0.534486491226677, 0.5977422523431346, 0.4475652380806845, 0.4672863273202414},
    {2.3699312880050485, 1.2701710596020925, -1.1084221050764538, -1.8134424788136054},
    {0.8355141563371227, 0.8129903754123295, 0.7383155971663107, 0.7366462350990594},
    {0.5574168585942484, 0.48899012294692007, 0.49911419867615, 0.4900383833117571},
    {0.5260112309237149, 0.582605388239794, -0.04954187376791392, 0.010947587671477823},
    {0.9826717519047978, 0.8538440085945324, -0.8035039232357087, -0.9481805174086068},
    {0.5477578009760791, 0.41752128674013145, -0.4010402167789335, -0.464644847838619},
};
const std::vector<std::vector<double>> kPeepholeClip = {
    {0.7085114181524822, 0.4856215846471461, 0.3425640097909335, 0.7019158885184806},
    {1.0, 1.0, -1.0, -0.8083215627789985},
    {0.6514054548364171, 0.822963269108145, 0.6966683522669382, 0.33054078609908844},
    {0.6964997547785077, 0.5139846945846641, 0.3535334823840691, 0.4698655916550804},
    {0.5260112309237149, 0.582605388239794, -0.04954187376791392, 0.010947587671477823},
    {0.7615941559557649, 0.7615941559557649, -0.7615941559557649, -0.6686633107033758},
    {0.5304501428639348, 0.39144773964638885, -0.2692490341183974, -0.3141818821016865},
};
const std::vector<double> kWci = {0.3, -0.4}, kWcf = {-0.2, 0.5}, kWco = {0.6, 0.1};

std::vector<Tensor> Inputs() {
  return {D(kX, {2, 3}), D(kCsPrev, {2, 2}), D(kHPrev, {2, 2}), D(kW, {5, 8}),
          D(kWci, {2}),  D(kWcf, {2}),       D(kWco, {2}),      D(kB, {8})};
}

ops::LSTMBlockCellAttrs Attrs(bool peephole) {
  ops::LSTMBlockCellAttrs a;
  a.use_peephole = peephole;
  a.cell_clip = peephole ? 1.0f : -1.0f;
  a.forget_bias = peephole ? 0.5f : 1.0f;
  return a;
}

Xs AllOutputs(const Scope& s, const Xs& in, const ops::LSTMBlockCellAttrs& a) {
  auto c = ops::LSTMBlockCell(s, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], a);
  return {c.i, c.cs, c.f, c.o, c.ci, c.co, c.h};
}

Tensor ToFloat(const Tensor& d) {
  std::vector<float> v(d.data<double>(), d.data<double>() + d.NumElements());
  return Tensor::FromVector(v, d.shape());
}

TEST_CASE("LSTMBlockCell matches NumPy without and with peepholes and clip", "[nn][lstm]") {
  for (bool peephole : {false, true}) {
    const auto& want = peephole ? kPeepholeClip : kPlain;
    for (bool as_float : {false, true}) {
      INFO("peephole " << peephole << " float " << as_float);
      std::vector<Tensor> in = Inputs();
      if (as_float)
        for (Tensor& t : in) t = ToFloat(t);
      std::vector<Tensor> out = test::RunOpOk(
          [&](const Scope& s, const Xs& x) { return AllOutputs(s, x, Attrs(peephole)); }, in);
      REQUIRE(out.size() == 7);
      for (int k = 0; k < 7; ++k) {
        INFO("output " << k);
        REQUIRE(out[k].shape() == TensorShape({2, 2}));
        for (int e = 0; e < 4; ++e) {
          const double got = as_float ? out[k].data<float>()[e] : out[k].data<double>()[e];
          CHECK(got == Approx(want[k][e]).margin(as_float ? 2e-6 : 1e-12));
        }
      }
    }
  }
}

TEST_CASE("LSTMBlockCell gradients of every input match central differences", "[nn][lstm][grad]") {
  for (bool peephole : {false, true}) {
    INFO("peephole " << peephole);
    ops::LSTMBlockCellAttrs a = Attrs(peephole);
    a.cell_clip = -1;  // the clip is not differentiated (as TensorFlow)
    const double err = test::MaxGradientError(
        [&](const Scope& s, const Xs& in) {
          auto c = ops::LSTMBlockCell(s, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], a);
          // Both differentiable outputs reach the loss: h, and cs with a different weight.
          return ops::Add(s, c.h, ops::Mul(s, c.cs, ops::Const(s, 0.7)));
        },
        Inputs());
    CHECK(err < 1e-7);
  }
}

TEST_CASE("LSTMBlockCell names the input whose shape does not fit", "[nn][lstm][errors]") {
  auto error = [](int index, const Tensor& bad) {
    std::vector<Tensor> in = Inputs();
    in[index] = bad;
    return test::RunOpError(
               [](const Scope& s, const Xs& x) { return AllOutputs(s, x, Attrs(false)); }, in)
        .message();
  };
  CHECK_THAT(error(3, D(std::vector<double>(32, 0.1), {4, 8})),
             Catch::Contains("w must have shape [5,8], got [4,8]"));
  auto shapes = test::InferShapes(
      "LSTMBlockCell", "cell", {{"T", DataType::kDouble}},
      {TensorShape({2, 3}), TensorShape({2, 2}), TensorShape({2, 2}), TensorShape({4, 8}),
       TensorShape({2}), TensorShape({2}), TensorShape({2}), TensorShape({8})});
  REQUIRE_FALSE(shapes.ok());
  CHECK_THAT(shapes.status().message(),
             Catch::Contains("LSTMBlockCell 'cell': w must have x's 3 + h_prev's 2 rows, got 4"));
  CHECK_THAT(error(1, D({1, 2, 3}, {1, 3})), Catch::Contains("cs_prev"));
  CHECK_THAT(error(7, D({1, 2, 3, 4, 5, 6}, {6})), Catch::Contains("b"));
  CHECK_THAT(error(4, D({1, 2, 3}, {3})), Catch::Contains("wci"));
  // A batch beyond BLAS's int (zero elements: an empty input of that many rows).
  const int64_t rows = int64_t{3} << 30;
  std::vector<Tensor> huge = {D({}, {rows, 0}), D({}, {rows, 0}), D({}, {rows, 0}), D({}, {0, 0}),
                              D({}, {0}),       D({}, {0}),       D({}, {0}),       D({}, {0})};
  CHECK_THAT(test::RunOpError(
                 [](const Scope& s, const Xs& x) { return AllOutputs(s, x, Attrs(false)); }, huge)
                 .message(),
             Catch::Contains("exceed what BLAS indexes (int): batch 3221225472"));
  // Unknown shapes at graph construction: the kernel checks them when the step runs.
  Scope root = Scope::NewRootScope();
  Xs ph;
  for (int i = 0; i < 8; ++i)
    ph.push_back(ops::Placeholder(root.WithOpName("p" + std::to_string(i)), DataType::kDouble));
  Output h = AllOutputs(root, ph, Attrs(false))[6];
  REQUIRE(root.ok());
  auto session = Session::Create(SessionOptions());
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(root.ToGraphDef()).ok());
  std::vector<Session::NamedTensor> feeds;
  std::vector<Tensor> in = Inputs();
  in[2] = D({1, 2, 3, 4, 5, 6}, {2, 3});  // h_prev [2, 3]: w needs 3 + 3 rows
  for (int i = 0; i < 8; ++i) feeds.push_back({ph[i].name(), in[i]});
  std::vector<Tensor> out;
  Status s = (*session)->Run(feeds, {h.name()}, {}, &out);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("w must have shape [6,8], got [5,8]"));
}

TEST_CASE("LSTMBlockCell with an empty batch gives empty outputs and zero peephole gradients",
          "[nn][lstm]") {
  std::vector<Tensor> in = Inputs();
  in[0] = D({}, {0, 3});
  in[1] = D({}, {0, 2});
  in[2] = D({}, {0, 2});
  std::vector<Tensor> out =
      test::RunOpOk([](const Scope& s, const Xs& x) { return AllOutputs(s, x, Attrs(true)); }, in);
  for (const Tensor& t : out) CHECK(t.shape() == TensorShape({0, 2}));
}

}  // namespace
}  // namespace fb
