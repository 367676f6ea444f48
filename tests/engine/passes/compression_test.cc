#include "engine/passes/compression.h"

#include <cmath>
#include <cstring>
#include <random>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/device_name.h"
#include "tests/test_util.h"

namespace fb {
namespace {

// Values spanning many binades, signs, denormal-free; plus exactly representable ones.
std::vector<float> TestValues() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mant(1.f, 2.f);
  std::uniform_int_distribution<int> expo(-60, 60);
  std::vector<float> v = {1.f, -1.f, 0.f, 0.5f, 3.f, 1.00390625f /* 1 + 2^-8: a tie */,
                          1.0078125f /* 1 + 2^-7 */};
  for (int i = 0; i < 20000; ++i) v.push_back((i % 2 ? -1 : 1) * std::ldexp(mant(rng), expo(rng)));
  return v;
}

// Runs x -> (CPU:0) Identity -> (CPU:1) Identity with the given passes; returns y.
std::vector<float> RoundTrip(const std::vector<float>& values, const std::vector<std::string>& passes,
                             RunMetadata* md) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root.WithOpName("x").WithDevice("/device:CPU:0"), values,
                      TensorShape({static_cast<int64_t>(values.size())}));
  auto a = ops::Identity(root.WithOpName("a").WithDevice("/device:CPU:0"), x);
  ops::Identity(root.WithOpName("y").WithDevice("/device:CPU:1"), a);
  REQUIRE(root.ok());
  SessionOptions opts;
  opts.device_options.num_cpu_devices = 2;
  opts.device_options.threads_per_cpu = 1;
  opts.passes = passes;
  opts.default_passes = false;  // the pass under test alone
  auto s = Session::Create(opts);
  REQUIRE((*s)->Extend(root.ToGraphDef()).ok());
  std::vector<Tensor> out;
  // fetch y on CPU:1 by a target-free run: _Fetch sits on the host device CPU:0, so y's value
  // crosses back uncompressed-or-compressed as well.
  Status st = (*s)->Run(RunOptions(), {}, {"y:0"}, {}, &out, md);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return test::Values<float>(out[0]);
}

TEST_CASE("Compression round trip: relative error below 2^-8 when rounding",
          "[passes][compression]") {
  std::vector<float> v = TestValues();
  RunMetadata plain_md, md;
  std::vector<float> plain = RoundTrip(v, {}, &plain_md);
  CHECK(plain == v);
  std::vector<float> y = RoundTrip(v, {"compression"}, &md);
  REQUIRE(y.size() == v.size());
  double worst = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == 0) {
      CHECK(y[i] == 0);
      continue;
    }
    worst = std::max(worst, std::abs(static_cast<double>(y[i]) - v[i]) / std::abs(v[i]));
    uint32_t bits;
    std::memcpy(&bits, &y[i], 4);
    CHECK((bits & 0xffffu) == 0);  // low 16 bits zero-filled
  }
  INFO("worst relative error " << worst);
  CHECK(worst < std::ldexp(1.0, -8));
  CHECK(y[0] == 1.f);
  CHECK(y[5] == 1.f);  // the tie rounds to even
  CHECK(y[6] == 1.0078125f);  // representable: exact
  // Each crossing carries 2 bytes per element instead of 4.
  CHECK(md.bytes_transferred * 2 == plain_md.bytes_transferred);
  REQUIRE(md.pass_reports.size() == 1);
  CHECK_THAT(md.pass_reports[0], Catch::StartsWith("compression: 2 changes"));
}

TEST_CASE("Compression with the paper's truncation: relative error below 2^-7",
          "[passes][compression]") {
  std::vector<float> v = TestValues();
  RunMetadata md;
  std::vector<float> y = RoundTrip(v, {"compression_truncate"}, &md);
  double worst = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == 0) continue;
    worst = std::max(worst, std::abs(static_cast<double>(y[i]) - v[i]) / std::abs(v[i]));
    CHECK(std::abs(y[i]) <= std::abs(v[i]));  // truncation moves toward zero
  }
  CHECK(worst < std::ldexp(1.0, -7));
  CHECK(worst > std::ldexp(1.0, -8));  // truncation is worse than rounding
}

TEST_CASE("Compression leaves same-device, non-float and placed-less graphs alone",
          "[passes][compression]") {
  Scope root = Scope::NewRootScope();
  auto i = ops::Const(root.WithOpName("i"), 3);
  auto f = ops::Const(root.WithOpName("f"), 1.f);
  ops::Neg(root.WithOpName("ni"), i);
  ops::Neg(root.WithOpName("nf"), f);
  REQUIRE(root.ok());
  auto unplaced = CompressCrossDeviceTransfers(root.graph(), false);
  REQUIRE_FALSE(unplaced.ok());
  CHECK_THAT(unplaced.status().message(), Catch::Contains("after placement"));
  for (Node* n : root.graph()->nodes()) n->set_assigned_device(LocalDeviceName("CPU", 0));
  root.graph()->FindNode("ni")->set_assigned_device(LocalDeviceName("CPU", 1));
  auto r = CompressCrossDeviceTransfers(root.graph(), false);
  REQUIRE(r.ok());
  CHECK(r->num_changes == 0);  // int32 crosses uncompressed; float stays on one device
}

}  // namespace
}  // namespace fb
