// Softmax, LogSoftmax and the softmax cross-entropy losses: closed-form values, stability for
// large logits, label validation, and numerical gradient checks in float64.
#include <cmath>

#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/nn_test_util.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::RunOpOk;
using test::Values;
using Xs = const std::vector<Output>&;

TEST_CASE("Softmax and LogSoftmax normalise the last axis (closed form)", "[nn][nn-softmax]") {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, -1, 0, 1}, {2, 3});
  auto out = RunOpOk(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{ops::Softmax(s, in[0]), ops::LogSoftmax(s, in[0])};
      },
      {x});
  // Both rows are shifts of each other, so they share softmax values e^k / (1 + e + e^2).
  const double z = 1 + std::exp(1.0) + std::exp(2.0);
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k) {
      CHECK(out[0].data<float>()[r * 3 + k] == Approx(std::exp(k) / z).epsilon(1e-6));
      CHECK(out[1].data<float>()[r * 3 + k] == Approx(k - std::log(z)).epsilon(1e-6));
    }
}

TEST_CASE("Softmax and LogSoftmax stay finite for large logits", "[nn][nn-softmax]") {
  Tensor x = Tensor::FromVector<float>({1000, 1000, 1000, 0}, {2, 2});
  auto out = RunOpOk(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{ops::Softmax(s, in[0]), ops::LogSoftmax(s, in[0])};
      },
      {x});
  CHECK(Values<float>(out[0]) == std::vector<float>{0.5f, 0.5f, 1.f, 0.f});
  CHECK(out[1].data<float>()[0] == Approx(-std::log(2.0)));
  CHECK(out[1].data<float>()[2] == 0.f);
  CHECK(out[1].data<float>()[3] == -1000.f);
}

TEST_CASE("SoftmaxCrossEntropyWithLogits gives loss and softmax - labels", "[nn][nn-softmax]") {
  Tensor features = Tensor::FromVector<float>({0, 0, 1000, 0, 1, 2}, {3, 2});
  Tensor labels = Tensor::FromVector<float>({1, 0, 0, 1, 0.25f, 0.75f}, {3, 2});
  auto out = RunOpOk(
      [](const Scope& s, Xs in) {
        auto xent = ops::SoftmaxCrossEntropyWithLogits(s, in[0], in[1]);
        return std::vector<Output>{xent.loss, xent.backprop};
      },
      {features, labels});
  REQUIRE(out[0].shape() == TensorShape({3}));
  REQUIRE(out[1].shape() == TensorShape({3, 2}));
  const double p = 1 / (1 + std::exp(-1.0));  // softmax([1, 2])[1]
  CHECK(out[0].data<float>()[0] == Approx(std::log(2.0)));
  CHECK(out[0].data<float>()[1] == Approx(1000.0));
  CHECK(out[0].data<float>()[2] == Approx(-0.25 * std::log(1 - p) - 0.75 * std::log(p)));
  std::vector<float> bp = Values<float>(out[1]);
  CHECK(bp[0] == Approx(-0.5));
  CHECK(bp[1] == Approx(0.5));
  CHECK(bp[2] == Approx(1.0));
  CHECK(bp[3] == Approx(-1.0));
  CHECK(bp[4] == Approx(1 - p - 0.25));
  CHECK(bp[5] == Approx(p - 0.75));
}

TEST_CASE("SparseSoftmaxCrossEntropyWithLogits matches the one-hot dense loss",
          "[nn][nn-softmax]") {
  Tensor features = Tensor::FromVector<float>({0, 0, 1000, 0, 1, 2}, {3, 2});
  for (DataType dt : {DataType::kInt32, DataType::kInt64}) {
    Tensor labels = dt == DataType::kInt32 ? Tensor::FromVector<int32_t>({0, 1, 1})
                                           : Tensor::FromVector<int64_t>({0, 1, 1});
    auto out = RunOpOk(
        [](const Scope& s, Xs in) {
          auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, in[0], in[1]);
          return std::vector<Output>{xent.loss, xent.backprop};
        },
        {features, labels});
    const double p = 1 / (1 + std::exp(-1.0));
    CHECK(out[0].data<float>()[0] == Approx(std::log(2.0)));
    CHECK(out[0].data<float>()[1] == Approx(1000.0));
    CHECK(out[0].data<float>()[2] == Approx(-std::log(p)));
    std::vector<float> bp = Values<float>(out[1]);
    CHECK(bp[0] == Approx(-0.5));
    CHECK(bp[3] == Approx(-1.0));
    CHECK(bp[5] == Approx(p - 1));
  }
}

TEST_CASE("Cross-entropy losses reject bad labels naming them", "[nn][nn-softmax][errors]") {
  Tensor features = test::RandomTensor<float>({3, 10});
  Status st = test::RunOpError(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{
            ops::SparseSoftmaxCrossEntropyWithLogits(s.WithOpName("xent"), in[0], in[1]).loss};
      },
      {features, Tensor::FromVector<int32_t>({3, 12, 0})});
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("SparseSoftmaxCrossEntropyWithLogits 'xent'"));
  CHECK_THAT(st.message(),
             Catch::Contains("received a label value of 12 at index 1, outside the valid range "
                             "of [0, 10)"));

  st = test::RunOpError(
      [](const Scope& s, Xs in) {
        return std::vector<Output>{ops::SoftmaxCrossEntropyWithLogits(s, in[0], in[1]).loss};
      },
      {features, test::RandomTensor<float>({3, 9})});
  CHECK_THAT(st.message(),
             Catch::Contains("labels must have shape [3,10] to match features [3,10], got shape [3,9]"));

  auto shapes = test::InferShapes("SparseSoftmaxCrossEntropyWithLogits", "xent",
                                  {{"T", DataType::kFloat}, {"Tlabels", DataType::kInt32}},
                                  {TensorShape{64, 10}, TensorShape{32}});
  REQUIRE_FALSE(shapes.ok());
  CHECK_THAT(shapes.status().message(),
             Catch::Contains("'xent': features and labels must have the same batch size: "
                             "dimensions 64 and 32 differ"));
}

TEST_CASE("Softmax and cross-entropy gradients match numerical gradients",
          "[nn][nn-softmax][grad]") {
  Tensor logits = test::RandomDouble({3, 5}, -2, 2, 21);
  // Labels are probability distributions (rows sum to 1), as the op requires: its backprop
  // output softmax - labels is the gradient only then.
  Tensor labels = test::RandomDouble({3, 5}, 0, 1, 22);
  for (int r = 0; r < 3; ++r) {
    double* row = labels.data<double>() + r * 5;
    double sum = 0;
    for (int c = 0; c < 5; ++c) sum += row[c];
    for (int c = 0; c < 5; ++c) row[c] /= sum;
  }
  CHECK(test::MaxGradientError([](const Scope& s, Xs xs) { return ops::Softmax(s, xs[0]); },
                               {logits}) < 1e-8);
  CHECK(test::MaxGradientError([](const Scope& s, Xs xs) { return ops::LogSoftmax(s, xs[0]); },
                               {logits}) < 1e-8);
  CHECK(test::MaxGradientError(
            [](const Scope& s, Xs xs) {
              return ops::SoftmaxCrossEntropyWithLogits(s, xs[0], xs[1]).loss;
            },
            {logits, labels}) < 1e-8);
  CHECK(test::MaxGradientError(
            [](const Scope& s, Xs xs) {
              return ops::SparseSoftmaxCrossEntropyWithLogits(s, xs[0], xs[1]).loss;
            },
            {logits, Tensor::FromVector<int64_t>({4, 0, 2})}) < 1e-8);
}

}  // namespace
}  // namespace fb
