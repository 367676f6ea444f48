// Size-dependent op efficiency (issue 17 item 3): rate curves on platform hosts, their parsing
// and formula, merged profiles for the calibration, and the profile cost model's extrapolation
// with the fitted curves (item 2).
#include <catch2/catch.hpp>

#include "sim/op_rate_curves.h"
#include "sim/op_time_scales.h"
#include "sim/profile_calibration.h"
#include "sim/profile_cost_model.h"

namespace fb::sim {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("Op rate curves parse, format and interpolate in log-log", "[sim][profile]") {
  auto c = ParseOpRateCurve("1e6:1e8  1e8:1e10", "cpu0", "op_flops_per_s:Conv2D");
  REQUIRE(c.ok());
  REQUIRE(c->knots.size() == 2);
  CHECK(c->RateAt(1e7) == Approx(1e9));  // half-way in log(work): half-way in log(rate)
  CHECK(c->RateAt(1e4) == Approx(1e8));
  CHECK(c->RateAt(1e12) == Approx(1e10));
  CHECK(FormatOpRateCurve(*c) == "1e+06:1e+08 1e+08:1e+10");
  auto again = ParseOpRateCurve(FormatOpRateCurve(*c), "cpu0", "p");
  REQUIRE(again.ok());
  CHECK(again->knots == c->knots);
  CHECK(OpRateCurve{}.RateAt(5) == 0);
}

TEST_CASE("Bad op rate curves name the host and the property", "[sim][profile]") {
  for (const auto& [value, expected] : std::vector<std::pair<std::string, std::string>>{
           {"", "must hold knots WORK:RATE"},
           {"   ", "must hold knots WORK:RATE"},
           {"1e6", "knot '1e6' must be WORK:RATE"},
           {"1e6:0", "two finite numbers > 0"},
           {"1e6:-5", "two finite numbers > 0"},
           {"1e6:nan", "two finite numbers > 0"},
           {"inf:1", "two finite numbers > 0"},
           {"1e6:1e9x", "two finite numbers > 0"},
           {"1e6:1e9,1e7:1e9", "must be WORK:RATE"},
           {"1e6:1e9 1e6:2e9", "must be larger than the previous knot's"},
           {"1e7:1e9 1e6:2e9", "must be larger than the previous knot's"}}) {
    auto bad = ParseOpEfficiency({{"op_bytes_per_s:Relu", value}}, "cpu7");
    INFO("'" << value << "'");
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.status().message(), Contains("host 'cpu7'") &&
                                           Contains("op_bytes_per_s:Relu") && Contains(expected));
  }
  auto no_op = ParseOpEfficiency({{"op_flops_per_s:", "1:1"}}, "cpu7");
  REQUIRE_FALSE(no_op.ok());
  CHECK_THAT(no_op.status().message(), Contains("host 'cpu7'") && Contains("must name an op"));
  auto bad_scale = ParseOpEfficiency({{"op_time_scale:MatMul", "-1"}}, "cpu7");
  REQUIRE_FALSE(bad_scale.ok());
  CHECK_THAT(bad_scale.status().message(), Contains("op_time_scale:MatMul"));
  // Old platforms: only op_time_scale properties.
  auto old = ParseOpEfficiency({{"op_time_scale:MatMul", "0.5"}, {"device_type", "CPU"}}, "c");
  REQUIRE(old.ok());
  CHECK(old->time_scale.at("MatMul") == 0.5);
  CHECK(old->flops_rate.empty());
}

TEST_CASE("EfficientComputeNs picks the bound by the host's ridge point", "[sim][profile]") {
  DeviceDesc d;
  d.peak_flops_per_s = 1e9;
  d.memory_bandwidth_bytes_per_s = 1e9;
  d.launch_overhead_ns = 1000;
  auto e = ParseOpEfficiency({{"op_flops_per_s:Conv2D", "1e6:1e8 1e8:1e10"},
                              {"op_bytes_per_s:Relu", "1e3:1e8"},
                              {"op_time_scale:Relu", "2"}},
                             "cpu0");
  REQUIRE(e.ok());
  // Compute-bound (1e7 FLOPs > 1e3 bytes at equal rates): 1e7 FLOPs at 1e9 FLOP/s.
  CHECK(EfficientComputeNs(*e, "Conv2D", OpWork{1e7, 1e3}, d) == Approx(1000 + 1e7));
  // A memory-bound Conv2D has no bytes curve: the host's bandwidth.
  CHECK(EfficientComputeNs(*e, "Conv2D", OpWork{1e3, 1e5}, d) == Approx(1000 + 1e5));
  // Relu: 1e5 bytes at 1e8 B/s, then the op_time_scale.
  CHECK(EfficientComputeNs(*e, "Relu", OpWork{1e4, 1e5}, d) == Approx(2 * (1000 + 1e6)));
  // No curve: the plain roofline.
  CHECK(EfficientComputeNs(*e, "Add", OpWork{1e3, 1e5}, d) == Approx(1000 + 1e5));
  // No work: the launch.
  CHECK(EfficientComputeNs(*e, "Conv2D", OpWork{0, 0}, d) == Approx(1000));
}

TEST_CASE("Profiles of one host merge for the calibration", "[sim][profile]") {
  Profile a, b;
  a.points = {{"lenet", "conv", "Conv2D", 16, 2, 1e6, 1e3, 1e6, 1}};
  a.steps = {{"lenet", 16, 2, 2e6, 0, 1e6, 5, 0}};
  b.points = {{"alexnet", "conv", "Conv2D", 2, 2, 1e9, 1e6, 1e8, 1}};
  b.steps = {{"alexnet", 2, 2, 2e8, 0, 1e8, 5, 0}};
  auto m = MergeProfiles({{"a.h5", a}, {"b.h5", b}});
  REQUIRE(m.ok());
  CHECK(m->points.size() == 2);
  CHECK(m->steps.size() == 2);
  auto twice = MergeProfiles({{"a.h5", a}, {"again.h5", a}});
  REQUIRE_FALSE(twice.ok());
  CHECK_THAT(twice.status().message(), Contains("a.h5") && Contains("again.h5") &&
                                           Contains("lenet at batch 16 with 2 threads"));
  Profile gpu = b;
  gpu.device_type = "GPU";
  auto mixed = MergeProfiles({{"a.h5", a}, {"gpu.h5", gpu}});
  REQUIRE_FALSE(mixed.ok());
  CHECK_THAT(mixed.status().message(), Contains("gpu.h5") && Contains("GPU"));
  CHECK_FALSE(MergeProfiles({}).ok());
}

// A weight-bound MatMul (1e6 bytes at batches 2 and 8, its time flat) and a convolution whose
// efficiency doubles from batch 2 to 8, predicted at batch 16.
Profile ExtrapolationProfile() {
  Profile p;
  p.points = {{"m", "id", "Identity", 2, 1, 0, 0, 100, 1},
              {"m", "conv", "Conv2D", 2, 1, 1e6, 1e3, 1e6 + 100, 1},
              {"m", "conv", "Conv2D", 8, 1, 4e6, 4e3, 2e6 + 100, 1},
              {"m", "fc", "MatMul", 2, 1, 1e5, 1e6, 1e6 + 100, 1},
              {"m", "fc", "MatMul", 8, 1, 4e5, 1e6, 1e6 + 100, 1}};
  return p;
}

TEST_CASE("Profile cost model extrapolates with the size-dependent roofline", "[sim][profile]") {
  auto m = ProfileCostModel::Create(ExtrapolationProfile(), 1, "x.h5");
  REQUIRE(m.ok());
  // Launch 100 ns; host rates 5e6 FLOPs / 3e6 ns and 2e6 bytes / 2e6 ns; the ridge makes fc
  // memory-bound (its bytes curve: one knot, 1e6 bytes at 1 B/ns) and conv compute-bound (knots
  // 1e6 FLOPs at 1 FLOP/ns, 4e6 at 2 FLOP/ns). At batch 16 fc reads the same 1e6 bytes: its
  // batch-8 time times (100 + 1e6) / (100 + 1e6). (A line through its two points has slope 0,
  // so the old roofline fit fell back to time proportional to FLOPs: 2e6 + 200 ns.)
  const ProfilePrediction fc = m->Predict("MatMul", "fc", OpWork{8e5, 1e6});
  CHECK(fc.source == ProfilePrediction::Source::kExtrapolated);
  CHECK(fc.time_ns == Approx(1e6 + 100));
  // conv at 8e6 FLOPs: the largest knot's rate (2 FLOP/ns) carries on: (2e6 + 100) times
  // (100 + 4e6) / (100 + 2e6).
  const ProfilePrediction conv = m->Predict("Conv2D", "conv", OpWork{8e6, 8e3});
  CHECK(conv.source == ProfilePrediction::Source::kExtrapolated);
  CHECK(conv.time_ns == Approx(4e6 + 100));
  // Below the range: from the smallest point, at its rate (1 FLOP/ns): 100 + 5e5.
  CHECK(m->Predict("Conv2D", "conv", OpWork{5e5, 500}).time_ns == Approx(5e5 + 100));
  // Within the range the measured curve is read as before.
  CHECK(m->Predict("Conv2D", "conv", OpWork{2e6, 2e3}).time_ns ==
        Approx(std::exp(0.5 * (std::log(1e6 + 100) + std::log(2e6 + 100)))));
}

TEST_CASE("A node of the simulated model is extrapolated from its own points", "[sim][profile]") {
  // Model "b" has a node of the same name and op type whose FLOPs cover the target's, three
  // times slower (Overfeat's fc layers against AlexNet's). The op type's pooled curve would
  // read b's time there; model "a"'s node is extrapolated from its own batch-8 point (same
  // bytes: the same time).
  Profile p = ExtrapolationProfile();
  p.points.push_back({"b", "fc", "MatMul", 2, 1, 5e5, 3e6, 3e6 + 100, 1});
  p.points.push_back({"b", "fc", "MatMul", 8, 1, 1e6, 3e6, 3e6 + 100, 1});
  auto m = ProfileCostModel::Create(p, 1, "x.h5");
  REQUIRE(m.ok());
  const ProfilePrediction a = m->Predict("MatMul", "fc", OpWork{8e5, 1e6}, "m");
  CHECK(a.source == ProfilePrediction::Source::kExtrapolated);
  CHECK(a.time_ns == Approx(1e6 + 100));
  // Without a model the node's curves of every model compete and the pooled curve is read.
  CHECK(m->Predict("MatMul", "fc", OpWork{8e5, 1e6}).time_ns == Approx(3e6 + 100));
}

TEST_CASE("Profiled models with the same node names are told apart by size", "[sim][profile]") {
  Profile p;
  p.points = {{"alexnet", "fc", "MatMul", 2, 1, 1e5, 1e6, 1e6, 1},
              {"alexnet", "fc", "MatMul", 8, 1, 4e5, 1e6, 1e6, 1},
              {"overfeat", "fc", "MatMul", 2, 1, 1e6, 3e6, 3e6, 1},
              {"overfeat", "fc", "MatMul", 8, 1, 4e6, 3e6, 3e6, 1}};
  auto m = ProfileCostModel::Create(p, 1, "x.h5");
  REQUIRE(m.ok());
  using NW = ProfileCostModel::NodeWork;
  CHECK(m->MatchingModel({"fc"}) == "alexnet");  // names alone: a tie, the first
  CHECK(m->MatchingModel({"fc"}, {NW{"fc", "MatMul", {2e6, 3e6}}}) == "overfeat");
  CHECK(m->MatchingModel({"fc"}, {NW{"fc", "MatMul", {2e5, 1e6}}}) == "alexnet");
  // Beyond both ranges: the nearer in log(work) (8e6 is 2x overfeat's largest, 20x alexnet's).
  CHECK(m->MatchingModel({"fc"}, {NW{"fc", "MatMul", {8e6, 3e6}}}) == "overfeat");
  CHECK(m->HasModel("overfeat"));
  CHECK_FALSE(m->HasModel("vgg_a"));
}

TEST_CASE("GPU profiles keep the roofline fit for extrapolation", "[sim][profile]") {
  Profile p = ExtrapolationProfile();
  p.device_type = "GPU";
  auto m = ProfileCostModel::Create(p, 1, "g.h5");
  REQUIRE(m.ok());
  CHECK(m->Predict("MatMul", "fc", OpWork{8e5, 1e6}).time_ns == Approx(2e6 + 200));
}

}  // namespace
}  // namespace fb::sim
