// ops::SampledSoftmaxLoss (engine/client/sampled_softmax.h) with fixed candidates and expected
// counts (constants as `sampled_values`, so every Run computes the same function): the value
// equals a direct computation in double of TensorFlow's formula (logits x.w + b - log Q, the
// accidental hit masked, cross-entropy against the true classes), with one and two true classes
// and with the masking off; the gradients w.r.t. inputs, weights and biases match central
// differences (tests/gradient_checker.h); the built-in log-uniform sampler gives finite losses,
// and num_sampled > num_classes fails with the sampler's message.
#include "engine/client/sampled_softmax.h"

#include <cmath>

#include "engine/client/math_ops.h"
#include "tests/engine/ops/array_test_util.h"
#include "tests/gradient_checker.h"
#include "tests/kernels/cpu/nn_test_util.h"

namespace fb {
namespace {

constexpr int64_t kClasses = 6, kDim = 3, kBatch = 3;

struct Problem {
  Tensor weights = test::RandomDouble({kClasses, kDim}, -1, 1, 11);
  Tensor biases = test::RandomDouble({kClasses}, -0.5, 0.5, 12);
  Tensor inputs = test::RandomDouble({kBatch, kDim}, -1, 1, 13);
  std::vector<int64_t> labels = {1, 4, 0};  // row 1's class 4 is also sampled: an accidental hit
  std::vector<int64_t> sampled = {4, 2, 5};
  std::vector<float> true_q = {0.5f, 0.8f, 0.3f};
  std::vector<float> sampled_q = {0.8f, 0.4f, 0.6f};
  int64_t num_true = 1;
};

ops::SampledSoftmaxOptions Options(const Scope& s, const Problem& p) {
  ops::SampledSoftmaxOptions o;
  o.num_sampled = static_cast<int64_t>(p.sampled.size());
  o.num_classes = kClasses;
  o.num_true = p.num_true;
  o.sampled_values.sampled_candidates = ops::Const(s, test::I64(p.sampled));
  o.sampled_values.true_expected_count =
      ops::Const(s, Tensor::FromVector<float>(p.true_q, TensorShape{kBatch, p.num_true}));
  o.sampled_values.sampled_expected_count = ops::Const(s, Tensor::FromVector<float>(p.sampled_q));
  return o;
}

// TensorFlow's formula, directly: per row, softmax over [true logits, sampled logits].
std::vector<double> Reference(const Problem& p, bool remove_hits) {
  auto logit = [&](int64_t row, int64_t k, double q) {
    double z = p.biases.data<double>()[k] - std::log(q);
    for (int64_t d = 0; d < kDim; ++d)
      z += p.inputs.data<double>()[row * kDim + d] * p.weights.data<double>()[k * kDim + d];
    return z;
  };
  std::vector<double> losses;
  for (int64_t i = 0; i < kBatch; ++i) {
    std::vector<double> true_logits, all;
    for (int64_t t = 0; t < p.num_true; ++t) {
      const int64_t k = i * p.num_true + t;
      true_logits.push_back(logit(i, p.labels[k], p.true_q[k]));
      all.push_back(true_logits.back());
    }
    for (size_t j = 0; j < p.sampled.size(); ++j) {
      bool hit = false;
      for (int64_t t = 0; t < p.num_true; ++t) hit |= p.labels[i * p.num_true + t] == p.sampled[j];
      if (!(hit && remove_hits)) all.push_back(logit(i, p.sampled[j], p.sampled_q[j]));
    }
    double sum = 0;
    for (double z : all) sum += std::exp(z);
    double loss = 0;
    for (double z : true_logits) loss += (std::log(sum) - z) / p.num_true;
    losses.push_back(loss);
  }
  return losses;
}

std::vector<double> Computed(const Problem& p, bool remove_hits) {
  Scope root = Scope::NewRootScope();
  ops::SampledSoftmaxOptions o = Options(root, p);
  o.remove_accidental_hits = remove_hits;
  Tensor labels = Tensor::FromVector<int64_t>(p.labels, TensorShape{kBatch, p.num_true});
  Output loss =
      ops::SampledSoftmaxLoss(root, ops::Const(root, p.weights), ops::Const(root, p.biases),
                              ops::Const(root, labels), ops::Const(root, p.inputs), o);
  Tensor out = test::RunScope(root, {loss})[0];
  REQUIRE(out.shape() == TensorShape{kBatch});
  return test::Values<double>(out);
}

TEST_CASE("SampledSoftmaxLoss equals the reference computation", "[sampled_softmax]") {
  Problem p;
  for (bool remove_hits : {true, false}) {
    INFO("remove_accidental_hits " << remove_hits);
    std::vector<double> want = Reference(p, remove_hits), got = Computed(p, remove_hits);
    for (int64_t i = 0; i < kBatch; ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-9));
  }
  // The masking matters only for row 1.
  CHECK(Reference(p, true)[0] == Approx(Reference(p, false)[0]));
  CHECK(Reference(p, true)[1] < Reference(p, false)[1] - 1e-3);
}

TEST_CASE("SampledSoftmaxLoss with two true classes equals the reference", "[sampled_softmax]") {
  Problem p;
  p.num_true = 2;
  p.labels = {1, 3, 4, 0, 2, 5};  // rows 1 and 2 have hits (4; 2 and 5)
  p.true_q = {0.5f, 0.2f, 0.8f, 0.3f, 0.4f, 0.6f};
  std::vector<double> want = Reference(p, true), got = Computed(p, true);
  for (int64_t i = 0; i < kBatch; ++i) CHECK(got[i] == Approx(want[i]).epsilon(1e-9));
}

TEST_CASE("SampledSoftmaxLoss gradients match central differences", "[sampled_softmax]") {
  Problem p;
  auto f = [&](const Scope& s, const std::vector<Output>& x) {
    Tensor labels = Tensor::FromVector<int64_t>(p.labels, TensorShape{kBatch, 1});
    return ops::SampledSoftmaxLoss(s, x[0], x[1], ops::Const(s, labels), x[2], Options(s, p));
  };
  CHECK(test::MaxGradientError(f, {p.weights, p.biases, p.inputs}) < 1e-6);
}

TEST_CASE("SampledSoftmaxLoss with the log-uniform sampler", "[sampled_softmax]") {
  Scope root = Scope::NewRootScope();
  const int64_t V = 1000, dim = 8, batch = 16;
  Tensor labels(DataType::kInt32, TensorShape{batch, 1});
  for (int64_t i = 0; i < batch; ++i) labels.data<int32_t>()[i] = static_cast<int32_t>(i * 37 % 50);
  ops::SampledSoftmaxOptions o;
  o.num_sampled = 64;
  o.num_classes = V;
  o.seed = 3;
  Output loss = ops::SampledSoftmaxLoss(
      root, ops::Const(root, test::RandomTensor<float>({V, dim}, -0.1, 0.1)),
      ops::Const(root, test::RandomTensor<float>({V}, -0.1, 0.1)), ops::Const(root, labels),
      ops::Const(root, test::RandomTensor<float>({batch, dim})), o);
  Tensor out = test::RunScope(root, {loss})[0];
  REQUIRE(out.shape() == TensorShape{batch});
  for (float l : test::Values<float>(out)) {
    CHECK(std::isfinite(l));
    CHECK(l > 0);
  }
  Scope bad = Scope::NewRootScope();
  o.num_sampled = V + 1;
  Output bad_loss = ops::SampledSoftmaxLoss(
      bad, ops::Const(bad, test::RandomTensor<float>({V, dim})),
      ops::Const(bad, test::RandomTensor<float>({V})), ops::Const(bad, labels),
      ops::Const(bad, test::RandomTensor<float>({batch, dim})), o);
  std::vector<Tensor> unused;
  Status st = test::RunScopeStatus(bad, {bad_loss}, &unused);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("num_sampled 1001 > range_max 1000"));
}

}  // namespace
}  // namespace fb
