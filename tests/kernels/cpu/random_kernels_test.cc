// RandomUniform, RandomStandardNormal and TruncatedNormal kernels: statistics of 10^5 samples
// against closed forms (tolerances are about 5 standard errors; seeds are fixed, so the values
// are deterministic), reproducibility and independence from the thread count.
#include <cmath>

#include <catch2/catch.hpp>

#include "engine/client/random_ops.h"
#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::RunError;
using test::RunScope;
using test::Values;

struct Moments {
  double mean = 0, std = 0, min = 1e300, max = -1e300;
};

Moments MomentsOf(const Tensor& t) {
  Moments m;
  const int64_t n = t.NumElements();
  std::vector<double> v(n);
  VisitDataType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, half> ||
                  std::is_same_v<T, bfloat16>)
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(static_cast<float>(t.data<T>()[i]));
  });
  for (double x : v) m.mean += x / n, m.min = std::min(m.min, x), m.max = std::max(m.max, x);
  for (double x : v) m.std += (x - m.mean) * (x - m.mean) / n;
  m.std = std::sqrt(m.std);
  return m;
}

Tensor Draw(const std::string& op, DataType dtype, int64_t n, int64_t seed, int threads = 2) {
  Scope root = Scope::NewRootScope();
  return RunScope(root, {ops::RandomOp(root, op, {n}, dtype, seed, 0)}, {}, threads)[0];
}

TEST_CASE("RandomUniform is uniform on the unit interval: mean 1/2, std 1/sqrt(12)", "[array][random]") {
  for (DataType dt : {DataType::kFloat, DataType::kDouble}) {
    Moments m = MomentsOf(Draw("RandomUniform", dt, 100000, 11));
    CHECK(m.min >= 0.0);
    CHECK(m.max < 1.0);
    CHECK(m.mean == Approx(0.5).margin(0.005));
    CHECK(m.std == Approx(1 / std::sqrt(12.0)).margin(0.003));
  }
}

TEST_CASE("RandomStandardNormal has mean 0 and std 1", "[array][random]") {
  for (DataType dt : {DataType::kFloat, DataType::kDouble}) {
    Moments m = MomentsOf(Draw("RandomStandardNormal", dt, 100000, 12));
    CHECK(m.mean == Approx(0.0).margin(0.016));
    CHECK(m.std == Approx(1.0).margin(0.012));
    CHECK(m.max > 3.0);  // tails exist: P(|x| > 3) = 0.27%
  }
}

TEST_CASE("TruncatedNormal stays within 2 std with the truncated std 0.8796", "[array][random]") {
  // Variance of N(0,1) truncated to (-2, 2): 1 - 4 phi(2) / (Phi(2) - Phi(-2)) = 0.77374.
  for (DataType dt : {DataType::kFloat, DataType::kDouble}) {
    Moments m = MomentsOf(Draw("TruncatedNormal", dt, 100000, 13));
    CHECK(m.min > -2.0);
    CHECK(m.max < 2.0);
    CHECK(m.mean == Approx(0.0).margin(0.014));
    CHECK(m.std == Approx(std::sqrt(0.77374)).margin(0.01));
  }
}

TEST_CASE("Random ops produce half and bfloat16", "[array][random]") {
  Moments h = MomentsOf(Draw("RandomUniform", DataType::kHalf, 10000, 14));
  CHECK(h.mean == Approx(0.5).margin(0.02));
  CHECK(h.max < 1.0);
  Moments b = MomentsOf(Draw("TruncatedNormal", DataType::kBFloat16, 10000, 15));
  CHECK(b.max <= 2.0);
  CHECK(b.std == Approx(0.88).margin(0.05));
}

TEST_CASE("A seeded random node is reproducible and independent of the thread count", "[array][random]") {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    INFO(op);
    Tensor one = Draw(op, DataType::kFloat, 100000, 5, /*threads=*/1);
    Tensor four = Draw(op, DataType::kFloat, 100000, 5, /*threads=*/4);
    CHECK(TensorsEqual(one, four));
    // A shorter draw is a prefix: element i depends on (seed, i) only.
    Tensor seven = Draw(op, DataType::kFloat, 7, 5);
    CHECK(Values<float>(seven) == std::vector<float>(one.data<float>(), one.data<float>() + 7));
    CHECK_FALSE(TensorsEqual(one, Draw(op, DataType::kFloat, 100000, 6, 1)));
  }
}

TEST_CASE("Each Run draws new numbers and a fresh Session replays them", "[array][random]") {
  auto two_runs = [](int64_t seed, int64_t seed2) {
    Scope root = Scope::NewRootScope();
    auto r = ops::RandomNormal(root, {64}, DataType::kFloat, seed, seed2);
    auto s = test::MakeSession(root.ToGraphDef());
    Tensor a = test::RunOk(s.get(), {}, {r.name()})[0];
    Tensor b = test::RunOk(s.get(), {}, {r.name()})[0];
    return std::make_pair(a, b);
  };
  auto [a1, b1] = two_runs(3, 4);
  auto [a2, b2] = two_runs(3, 4);
  CHECK_FALSE(TensorsEqual(a1, b1));
  CHECK(TensorsEqual(a1, a2));
  CHECK(TensorsEqual(b1, b2));
  auto [c1, d1] = two_runs(3, 5);  // seed2 changes the stream
  CHECK_FALSE(TensorsEqual(a1, c1));
  auto [e1, f1] = two_runs(0, 0);  // unseeded: a random stream per Session
  auto [e2, f2] = two_runs(0, 0);
  CHECK_FALSE(TensorsEqual(e1, e2));
}

TEST_CASE("Random ops are stateful and reject negative shapes naming the node", "[array][random]") {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"})
    CHECK((*OpRegistry::Global()->LookUp(op))->is_stateful);
  Scope root = Scope::NewRootScope();
  auto shape = ops::Placeholder(root.WithOpName("shape"), DataType::kInt32);
  auto r = ops::RandomOp(root.WithOpName("init"), "RandomUniform", shape, DataType::kFloat);
  CHECK_THAT(RunError(root, r, {{shape, test::I32({2, -1})}}),
             Catch::Contains("RandomUniform 'init'") &&
                 Catch::Contains("shape [2,-1]: negative dimension -1"));
}

}  // namespace
}  // namespace fb
