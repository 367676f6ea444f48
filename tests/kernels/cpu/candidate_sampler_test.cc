// UniformCandidateSampler, LogUniformCandidateSampler and ComputeAccidentalHits
// (engine/ops/candidate_sampling_ops.cc): shapes, reference expected counts (hand-computed from
// P(k)), the empirical distribution of many seeded draws against P(k) (bounds of 5 standard
// deviations of the binomial count: with a fixed seed the test is deterministic, and the bound
// holds with any seed but once in ~10^6), distinct values with unique = true and TensorFlow's
// expected count 1 - (1 - p)^tries then, reproducibility, the error messages, and the absence of
// gradients.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <set>

#include "engine/autodiff/gradient_registry.h"
#include "engine/client/candidate_sampling_ops.h"
#include "engine/client/state_ops.h"
#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::Values;

enum class Kind { kUniform, kLogUniform };

double Probability(Kind kind, int64_t k, int64_t range) {
  if (kind == Kind::kUniform) return 1.0 / range;
  return std::log((k + 2.0) / (k + 1.0)) / std::log(range + 1.0);
}

ops::SampledCandidates Sample(const Scope& s, Kind kind, Output truth,
                              const ops::CandidateSamplerAttrs& a) {
  return kind == Kind::kUniform ? ops::UniformCandidateSampler(s, truth, a)
                                : ops::LogUniformCandidateSampler(s, truth, a);
}

// `runs` Runs of a sampler on true_classes `truth` in one Session: per Run, the three outputs.
std::vector<std::vector<Tensor>> Draws(Kind kind, const Tensor& truth,
                                       const ops::CandidateSamplerAttrs& a, int runs) {
  Scope root = Scope::NewRootScope();
  ops::SampledCandidates c = Sample(root, kind, ops::Const(root, truth), a);
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  auto session = test::MakeSession(root.ToGraphDef());
  std::vector<std::vector<Tensor>> out;
  for (int i = 0; i < runs; ++i) {
    out.push_back(test::RunOk(session.get(), {},
                              {c.sampled_candidates.name(), c.true_expected_count.name(),
                               c.sampled_expected_count.name()}));
  }
  return out;
}

ops::CandidateSamplerAttrs Attrs(int64_t num_true, int64_t num_sampled, bool unique,
                                 int64_t range_max, int64_t seed = 1) {
  ops::CandidateSamplerAttrs a;
  a.num_true = num_true;
  a.num_sampled = num_sampled;
  a.unique = unique;
  a.range_max = range_max;
  a.seed = seed;
  return a;
}

TEST_CASE("LogUniformCandidateSampler expected counts match the reference values",
          "[candidate_sampler]") {
  // P(k) = log((k+2)/(k+1)) / log(11) for range_max 10; without unique, count = 4 P(k).
  Tensor truth = Tensor::FromVector<int64_t>({0, 3, 9}, TensorShape{3, 1});
  std::vector<Tensor> out = Draws(Kind::kLogUniform, truth, Attrs(1, 4, false, 10), 1)[0];
  REQUIRE(out[0].shape() == TensorShape{4});
  REQUIRE(out[1].shape() == TensorShape{3, 1});
  REQUIRE(out[2].shape() == TensorShape{4});
  std::vector<float> expected = Values<float>(out[1]);
  CHECK(expected[0] == Approx(1.1562593052715513).epsilon(1e-6));
  CHECK(expected[1] == Approx(0.37223235534185567).epsilon(1e-6));
  CHECK(expected[2] == Approx(0.15898972884349014).epsilon(1e-6));
  for (int i = 0; i < 4; ++i) {
    const int64_t k = out[0].data<int64_t>()[i];
    REQUIRE(k >= 0);
    REQUIRE(k < 10);
    CHECK(out[2].data<float>()[i] == Approx(4 * Probability(Kind::kLogUniform, k, 10)));
  }
}

TEST_CASE("UniformCandidateSampler expected counts are num_sampled over range_max",
          "[candidate_sampler]") {
  Tensor truth = Tensor::FromVector<int64_t>({1, 2, 5, 6}, TensorShape{2, 2});
  std::vector<Tensor> out = Draws(Kind::kUniform, truth, Attrs(2, 5, false, 8), 1)[0];
  CHECK(Values<float>(out[1]) == std::vector<float>(4, 5.0f / 8));
  CHECK(Values<float>(out[2]) == std::vector<float>(5, 5.0f / 8));
}

// Draws num_sampled * runs candidates and checks the count of every bucket [edges[i],
// edges[i + 1]) of classes against N P(bucket).
void CheckDistribution(Kind kind, int64_t range, int64_t num_sampled, int runs,
                       std::vector<int64_t> edges = {}) {
  if (edges.empty())
    for (int64_t k = 0; k <= range; ++k) edges.push_back(k);  // every class its own bucket
  Tensor truth = Tensor::FromVector<int64_t>({0}, TensorShape{1, 1});
  std::vector<int64_t> count(edges.size() - 1, 0);
  for (const auto& out : Draws(kind, truth, Attrs(1, num_sampled, false, range, 7), runs)) {
    for (int64_t k : Values<int64_t>(out[0])) {
      REQUIRE(k >= 0);
      REQUIRE(k < range);
      ++count[std::upper_bound(edges.begin(), edges.end(), k) - edges.begin() - 1];
    }
  }
  const double n = static_cast<double>(num_sampled) * runs;
  for (size_t b = 0; b < count.size(); ++b) {
    double p = 0;
    for (int64_t k = edges[b]; k < edges[b + 1]; ++k) p += Probability(kind, k, range);
    INFO("classes [" << edges[b] << ", " << edges[b + 1] << ") drawn " << count[b]
                     << " times, expected " << n * p);
    CHECK(std::abs(count[b] - n * p) < 5 * std::sqrt(n * p * (1 - p)) + 1);
  }
}

TEST_CASE("Candidate samplers draw classes with probability P(k)", "[candidate_sampler]") {
  CheckDistribution(Kind::kUniform, 10, 1000, 20);
  CheckDistribution(Kind::kLogUniform, 20, 2000, 10);
  // A vocabulary-sized range, in buckets [2^i - 1, 2^(i+1) - 1) of equal log-uniform mass.
  std::vector<int64_t> edges;
  for (int64_t e = 1; e - 1 < 40000; e *= 2) edges.push_back(e - 1);
  edges.push_back(40000);
  CheckDistribution(Kind::kLogUniform, 40000, 5000, 4, edges);
}

// With unique, every expected count is 1 - (1 - P(k))^tries for one integer tries >= num_sampled
// (the number of draws the Run needed).
void CheckUniqueDraw(Kind kind, int64_t range, int64_t num_sampled, const Tensor& truth) {
  for (const auto& out :
       Draws(kind, truth, Attrs(truth.dim_size(1), num_sampled, true, range), 5)) {
    std::vector<int64_t> sampled = Values<int64_t>(out[0]);
    std::set<int64_t> distinct(sampled.begin(), sampled.end());
    CHECK(static_cast<int64_t>(distinct.size()) == num_sampled);
    CHECK(*distinct.begin() >= 0);
    CHECK(*distinct.rbegin() < range);
    // tries from the least likely candidate (its count, furthest from 1, is the most precise).
    const int64_t least =
        std::min_element(out[2].data<float>(), out[2].data<float>() + num_sampled) -
        out[2].data<float>();
    const double p0 = Probability(kind, sampled[least], range);
    const double tries = std::log1p(-out[2].data<float>()[least]) / std::log1p(-p0);
    const double rounded = std::round(tries);
    INFO("tries " << tries);
    CHECK(std::abs(tries - rounded) < 0.05);
    CHECK(rounded >= num_sampled);
    auto expected = [&](int64_t k) {
      return -std::expm1(rounded * std::log1p(-Probability(kind, k, range)));
    };
    for (int64_t i = 0; i < num_sampled; ++i)
      CHECK(out[2].data<float>()[i] == Approx(expected(sampled[i])).epsilon(1e-4));
    for (int64_t i = 0; i < truth.NumElements(); ++i)
      CHECK(out[1].data<float>()[i] == Approx(expected(truth.data<int64_t>()[i])).epsilon(1e-4));
  }
}

TEST_CASE("Unique candidate sampling returns distinct classes and TensorFlow's expected counts",
          "[candidate_sampler]") {
  Tensor truth = Tensor::FromVector<int64_t>({0, 4, 11, 19}, TensorShape{2, 2});
  CheckUniqueDraw(Kind::kUniform, 20, 15, truth);
  CheckUniqueDraw(Kind::kLogUniform, 20, 12, truth);
  CheckUniqueDraw(Kind::kLogUniform, 20, 20, truth);  // every class, in random order
}

TEST_CASE("Candidate samplers stay in range for the largest range_max", "[candidate_sampler]") {
  const int64_t range = std::numeric_limits<int64_t>::max();
  Tensor truth = Tensor::FromVector<int64_t>({range - 1}, TensorShape{1, 1});
  for (Kind kind : {Kind::kUniform, Kind::kLogUniform}) {
    std::vector<Tensor> out = Draws(kind, truth, Attrs(1, 1000, true, range), 1)[0];
    for (int64_t k : Values<int64_t>(out[0])) {
      CHECK(k >= 0);
      CHECK(k < range);
    }
    CHECK(std::isfinite(out[1].data<float>()[0]));
  }
}

TEST_CASE("Candidate samplers are reproducible with a seed and differ between Runs",
          "[candidate_sampler]") {
  Tensor truth = Tensor::FromVector<int64_t>({3}, TensorShape{1, 1});
  auto a = Draws(Kind::kLogUniform, truth, Attrs(1, 16, true, 1000, 5), 2);
  auto b = Draws(Kind::kLogUniform, truth, Attrs(1, 16, true, 1000, 5), 2);
  auto c = Draws(Kind::kLogUniform, truth, Attrs(1, 16, true, 1000, 6), 1);
  CHECK(Values<int64_t>(a[0][0]) == Values<int64_t>(b[0][0]));
  CHECK(Values<int64_t>(a[1][0]) == Values<int64_t>(b[1][0]));
  CHECK(Values<int64_t>(a[0][0]) != Values<int64_t>(a[1][0]));
  CHECK(Values<int64_t>(a[0][0]) != Values<int64_t>(c[0][0]));
}

TEST_CASE("Candidate sampler shape function", "[candidate_sampler]") {
  AttrMap attrs{{"num_true", int64_t{2}},
                {"num_sampled", int64_t{7}},
                {"unique", true},
                {"range_max", int64_t{50}}};
  auto shapes = test::InferShapes("LogUniformCandidateSampler", attrs, {TensorShape{-1, 2}});
  REQUIRE(shapes.ok());
  CHECK(PartialShapeString((*shapes)[0]) == "[7]");
  CHECK(PartialShapeString((*shapes)[1]) == "[?,2]");
  CHECK(PartialShapeString((*shapes)[2]) == "[7]");
  CHECK_THAT(test::InferredShape("UniformCandidateSampler", attrs, {TensorShape{4}}),
             Catch::Contains("true_classes must be 2-D [batch, num_true], got shape [4]"));
  CHECK_THAT(test::InferredShape("UniformCandidateSampler", attrs, {TensorShape{4, 3}}),
             Catch::Contains("true_classes must have num_true columns: dimensions 3 and 2 differ"));
  attrs["range_max"] = int64_t{5};
  CHECK_THAT(test::InferredShape("UniformCandidateSampler", attrs, {TensorShape{4, 2}}),
             Catch::Contains("num_sampled <= range_max, got num_sampled 7 > range_max 5"));
}

TEST_CASE("Candidate samplers reject bad inputs with a message", "[candidate_sampler]") {
  Scope root = Scope::NewRootScope();
  Output truth = ops::Placeholder(root, DataType::kInt64);
  auto c = ops::UniformCandidateSampler(root.WithOpName("sampler"), truth, Attrs(1, 3, false, 5));
  auto feed = [&](const Tensor& t) {
    return test::RunError(root, c.sampled_candidates, {{truth, t}});
  };
  std::string m = feed(Tensor::FromVector<int64_t>({1, 2, 3, 4}, TensorShape{2, 2}));
  CHECK_THAT(m, Catch::Contains("true_classes must be [batch, num_true] with num_true = 1, got "
                                "shape [2,2]"));
  CHECK_THAT(m, Catch::Contains("sampler"));
  m = feed(Tensor::FromVector<int64_t>({1, 7}, TensorShape{2, 1}));
  CHECK_THAT(m, Catch::Contains("true_classes[1,0] = 7 is not in [0, range_max = 5)"));

  // unique with range_max < num_sampled: caught when the kernel is created too (the graph's
  // shape is unknown here, so only the attrs tell).
  Scope r2 = Scope::NewRootScope();
  Output t2 = ops::Placeholder(r2, DataType::kInt64);
  auto c2 =
      ops::LogUniformCandidateSampler(r2.WithOpName("unique_sampler"), t2, Attrs(1, 6, true, 5));
  std::vector<Tensor> out;
  Status st = test::RunScopeStatus(r2, {c2.sampled_candidates}, &out,
                                   {{t2, Tensor::FromVector<int64_t>({1}, TensorShape{1, 1})}});
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(),
             Catch::Contains("num_sampled <= range_max, got num_sampled 6 > range_max 5"));
}

TEST_CASE("ComputeAccidentalHits finds sampled candidates equal to a true class",
          "[candidate_sampler]") {
  Scope root = Scope::NewRootScope();
  // Class 4 is sampled twice: the hit names its last position (3), as TensorFlow.
  Output truth = ops::Const(root, Tensor::FromVector<int64_t>({1, 4, 7}, TensorShape{3, 1}));
  auto hits = ops::ComputeAccidentalHits(root, truth, ops::Const(root, test::I64({4, 1, 9, 4})), 1);
  auto out = test::RunScope(root, {hits.indices, hits.ids, hits.weights});
  CHECK(Values<int32_t>(out[0]) == std::vector<int32_t>{0, 1});
  CHECK(Values<int64_t>(out[1]) == std::vector<int64_t>{1, 3});
  CHECK(Values<float>(out[2]) == std::vector<float>{-FLT_MAX, -FLT_MAX});

  Scope r2 = Scope::NewRootScope();
  Output truth2 = ops::Const(r2, Tensor::FromVector<int64_t>({1, 2, 3, 9}, TensorShape{2, 2}));
  auto hits2 = ops::ComputeAccidentalHits(r2, truth2, ops::Const(r2, test::I64({2, 9, 5})), 2);
  out = test::RunScope(r2, {hits2.indices, hits2.ids, hits2.weights});
  CHECK(Values<int32_t>(out[0]) == std::vector<int32_t>{0, 1});
  CHECK(Values<int64_t>(out[1]) == std::vector<int64_t>{0, 1});
  CHECK(out[2].NumElements() == 2);

  Scope r3 = Scope::NewRootScope();
  auto none = ops::ComputeAccidentalHits(
      r3, ops::Const(r3, Tensor::FromVector<int64_t>({8}, TensorShape{1, 1})),
      ops::Const(r3, test::I64({1, 2})), 1);
  out = test::RunScope(r3, {none.indices, none.ids, none.weights});
  CHECK(out[0].shape() == TensorShape{0});
}

TEST_CASE("ComputeAccidentalHits rejects bad shapes with a message", "[candidate_sampler]") {
  Scope root = Scope::NewRootScope();
  Output truth = ops::Placeholder(root, DataType::kInt64);
  Output sampled = ops::Placeholder(root, DataType::kInt64);
  auto hits = ops::ComputeAccidentalHits(root.WithOpName("hits"), truth, sampled, 1);
  Tensor good_truth = Tensor::FromVector<int64_t>({1}, TensorShape{1, 1});
  std::string m = test::RunError(
      root, hits.ids,
      {{truth, good_truth}, {sampled, Tensor::FromVector<int64_t>({1, 2}, TensorShape{1, 2})}});
  CHECK_THAT(m, Catch::Contains("sampled_candidates must be 1-D [num_sampled], got shape [1,2]"));
  m = test::RunError(root, hits.ids, {{truth, test::I64({1})}, {sampled, test::I64({1})}});
  CHECK_THAT(m, Catch::Contains(
                    "true_classes must be [batch, num_true] with num_true = 1, got shape [1]"));
  CHECK_THAT(test::InferredShape("ComputeAccidentalHits", {{"num_true", int64_t{1}}},
                                 {TensorShape{2, 1}, TensorShape{2, 2}}),
             Catch::Contains("sampled_candidates must be 1-D [num_sampled], got shape [2,2]"));
}

TEST_CASE("Candidate sampling ops are registered as not differentiable", "[candidate_sampler]") {
  for (const char* op :
       {"UniformCandidateSampler", "LogUniformCandidateSampler", "ComputeAccidentalHits"}) {
    INFO(op);
    CHECK(GradientRegistry::Global()->IsNoGradient(op));
    CHECK(GradientRegistry::Global()->Lookup(op) == nullptr);
  }
}

}  // namespace
}  // namespace fb
