// Transfer and conversion costs as curves of the tensor's bytes (issue 17, profile schema 5):
// the curve's interpolation, the probe's reduction of its samples, the simulator's charges with
// hand-computed makespans, the /transfers table's round trip and bad rows, and a schema-4
// profile without the table.
#include <cmath>

#include "sim/byte_cost_curve.h"
#include "sim/profile.h"
#include "sim/profile_cost_model.h"
#include "sim/profile_transfer_costs.h"
#include "sim/transfer_cost_probe.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("A byte cost curve interpolates its points and continues its last slope",
          "[sim][transfer_curve]") {
  ByteCostCurve c;
  CHECK(c.At(100) == 0);  // no points
  c.points = {{1000, 4}, {3000, 8}, {7000, 10}};
  CHECK(c.At(0) == 4);     // below the first point: its cost
  CHECK(c.At(1000) == 4);
  CHECK(c.At(2000) == 6);  // 4 + (8 - 4) * 1000 / 2000
  CHECK(c.At(5000) == 9);  // 8 + 2 * 2000 / 4000
  CHECK(c.At(11000) == 12);  // beyond: 10 + (10 - 8) / 4000 per byte * 4000
  CHECK(c.Scaled(1e-9).At(2000) == Approx(6e-9));
  ByteCostCurve one;
  one.points = {{1000, 4}};
  CHECK(one.At(1e9) == 4);
}

TEST_CASE("MonotoneCurve sorts, merges equal sizes and pools the sizes that cost less",
          "[sim][transfer_curve]") {
  const ByteCostCurve c = MonotoneCurve(
      {{4096, 3}, {1024, 5}, {0, 100}, {16384, 12}, {1024, 7}, {65536, -1}, {262144, 20}});
  REQUIRE(c.points.size() == 5);
  CHECK(c.points[0] == std::make_pair(1024.0, 4.5));   // mean of 5 and 7 (6), pooled with 3
  CHECK(c.points[1] == std::make_pair(4096.0, 4.5));   // bytes 0 dropped
  CHECK(c.points[2] == std::make_pair(16384.0, 6.0));  // 12 pooled with -1 clamped to 0
  CHECK(c.points[3] == std::make_pair(65536.0, 6.0));
  CHECK(c.points[4] == std::make_pair(262144.0, 20.0));
  CHECK(MonotoneCurve({}).empty());
}

TEST_CASE("The transfer probe gives each conversion half the small sizes' overhead",
          "[sim][transfer_curve]") {
  // Overheads 4, 6 and 8 ns at the sizes up to 256 KiB (median 6: 3 per side); the 4 MiB one's
  // 5000 ns is the machine's load and is left out.
  std::vector<TransferProbeSample> s = {
      {4 << 20, 900, 4000, 2000, 5000},
      {1024, 3000, 10, 20, 4},
      {262144, 9000, 400, 200, 8},
      {16384, 5000, 50, 40, 6},
  };
  const TransferCosts c = CostsFromSamples(s);
  REQUIRE(c.samples.size() == 4);
  CHECK(c.samples[0].bytes == 1024);  // sorted
  REQUIRE(c.transfer.points.size() == 4);
  CHECK(c.transfer.At(1024) == 3000);
  // 9000 then the 4 MiB one's 900 (noise): pooled, then with 5000, their mean 14900 / 3.
  CHECK(c.transfer.At(16384) == Approx(14900.0 / 3));
  CHECK(c.transfer.At(262144) == Approx(14900.0 / 3));
  CHECK(c.transfer.At(4 << 20) == Approx(14900.0 / 3));
  CHECK(c.compress.At(1024) == 13);
  CHECK(c.compress.At(16384) == 53);
  CHECK(c.compress.At(4 << 20) == 4003);
  CHECK(c.decompress.At(262144) == 203);
}

// A chain x (CPU:0) -> y (CPU:1) -> z (CPU:0) -> w (CPU:1), float32, on two_hosts.xml (1 ms,
// 100 MB/s between its devices, one process), 0.25 s per node, 1e6 bytes per tensor.
StatusOr<SimResult> RunChain(const SimCosts& extra, bool compression) {
  return test::RunSimInChild([&]() -> StatusOr<SimResult> {
    const std::string identity = R"("attrs": {"T": {"type": "float"}})";
    const std::string def = std::string(R"({"nodes": [
      {"name": "x", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
      {"name": "y", "op": "Identity", "device": "/device:CPU:1", "inputs": ["x"], )" +
                            identity + R"(},
      {"name": "z", "op": "Identity", "device": "/device:CPU:0", "inputs": ["y"], )" +
                            identity + R"(},
      {"name": "w", "op": "Identity", "device": "/device:CPU:1", "inputs": ["z"], )" +
                            identity + R"(}]})";
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(def));
    if (!g.ok()) return g.status();
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(test::PlatformPath("two_hosts.xml")));
    SimCosts costs = test::TableCosts({{"x", 0.25}, {"y", 0.25}, {"z", 0.25}, {"w", 0.25}},
                                      {{"x", 1000000}, {"y", 1000000}, {"z", 1000000}});
    costs.in_process_transfer_curve_s = extra.in_process_transfer_curve_s;
    costs.compress_curve_s = extra.compress_curve_s;
    costs.decompress_curve_s = extra.decompress_curve_s;
    SimRunOptions o;
    o.workload.compression = compression;
    return sim.Run(**g, costs, o);
  });
}

TEST_CASE("The simulator charges the transfer and conversion curves at the bytes moved",
          "[sim][transfer_curve]") {
  SimCosts c;
  c.in_process_transfer_curve_s.points = {{1000, 0.001}, {1000000, 0.003}};
  c.compress_curve_s.points = {{1000000, 0.004}};
  c.decompress_curve_s.points = {{1000000, 0.002}};
  // Off: each of 3 transfers takes 1 ms + 1e6 / 1e8 s on the link, then its _Recv the curve at
  // 1e6 bytes (3 ms): 1 + 3 * 0.014 s.
  auto off = RunChain(c, false);
  INFO(off.status().ToString());
  REQUIRE(off.ok());
  CHECK(off->step_times_s[0] == Approx(1.0 + 3 * 0.014).epsilon(1e-9));
  // On: compress 4 ms, the link 1 ms + 5e5 / 1e8 s, the _Recv the curve at 5e5 bytes
  // (0.001 + 0.002 * 499000 / 999000 s), decompress 2 ms.
  auto on = RunChain(c, true);
  REQUIRE(on.ok());
  const double recv = 0.001 + 0.002 * 499000.0 / 999000.0;
  CHECK(on->step_times_s[0] == Approx(1.0 + 3 * (0.004 + 0.006 + recv + 0.002)).epsilon(1e-9));
}

Profile ProfileWithTransferPoints() {
  Profile p;
  p.host = "test";
  p.points = {{"m", "mm", "MatMul", 1, 1, 100, 800, 3000, 5}};
  p.steps = {{"m", 1, 1, 9000, 9100, 3000, 20, 0.5, 1, 0}};
  ProfileExecutor e;
  e.threads = 1;
  e.has_step_costs = true;
  e.run_ns = 4000;
  e.has_transfer_cost = true;
  e.transfer_ns = 9500;
  e.transfer_points = {{4, 1024, 3500, 400, 300}, {4, 262144, 9500, 45000, 20000}};
  p.executor = {e};
  return p;
}

TEST_CASE("Profile round trip keeps the transfer points", "[sim][profile][transfer_curve]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  Profile p = ProfileWithTransferPoints();
  ProfileExecutor two;
  two.threads = 2;
  p.executor.push_back(two);
  REQUIRE(WriteProfile(path, p).ok());
  auto r = ReadProfile(path);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->schema_version == 5);
  REQUIRE(r->executor.size() == 2);
  REQUIRE(r->executor[0].transfer_points.size() == 2);
  const ProfileTransferPoint& t = r->executor[0].transfer_points[1];
  CHECK(t.devices == 4);
  CHECK(t.bytes == 262144);
  CHECK(t.transfer_ns == 9500);
  CHECK(t.compress_ns == 45000);
  CHECK(t.decompress_ns == 20000);
  CHECK(r->executor[1].transfer_points.empty());
}

TEST_CASE("The profile's transfer points become the simulator's curves",
          "[sim][profile][transfer_curve]") {
  auto m = ProfileCostModel::Create(ProfileWithTransferPoints(), 1, "host.h5");
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  SimCosts c;
  SetProfileTransferCosts(*m, &c);
  CHECK(c.in_process_transfer_s == 0);  // the curves replace the linear costs
  CHECK(c.compress_s_per_byte == 0);
  CHECK(c.in_process_transfer_curve_s.At(1024) == Approx(3.5e-6));
  CHECK(c.compress_curve_s.At(262144) == Approx(45e-6));
  CHECK(c.decompress_curve_s.At(1024) == Approx(0.3e-6));
  CHECK_THAT(TransferCostsDescription(*m),
             Contains("3.5 us at 1 KiB to 9.5 us at 256 KiB per transfer between devices of one "
                      "process (4 devices probed)"));
  // step-costs=off: nothing measured is used.
  auto off = ProfileCostModel::Create(ProfileWithTransferPoints(), 1, "host.h5", false);
  REQUIRE(off.ok());
  SimCosts none;
  SetProfileTransferCosts(*off, &none);
  CHECK(none.in_process_transfer_curve_s.empty());
  CHECK(none.in_process_transfer_s == 0);
}

TEST_CASE("A /transfers table with sizes out of order is refused",
          "[sim][profile][transfer_curve]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("unordered.h5");
  Profile p = ProfileWithTransferPoints();
  std::swap(p.executor[0].transfer_points[0], p.executor[0].transfer_points[1]);
  REQUIRE(WriteProfile(path, p).ok());
  auto r = ReadProfile(path);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("unordered.h5"));
  CHECK_THAT(r.status().message(),
             Contains("/transfers row 1 (threads 1) has bytes 1024, expected more than the row "
                      "before (262144)"));
  p = ProfileWithTransferPoints();
  p.executor[0].transfer_points[0].compress_ns = -1;
  REQUIRE(WriteProfile(path, p).ok());
  r = ReadProfile(path);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("/transfers row 0 holds a negative or non-finite"));
  p = ProfileWithTransferPoints();
  p.executor[0].transfer_points[0].devices = 1;
  REQUIRE(WriteProfile(path, p).ok());
  r = ReadProfile(path);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("has 1 devices, expected >= 2"));
}

TEST_CASE("A schema-4 profile still loads, without transfer points",
          "[sim][profile][transfer_curve]") {
  // Written by `flowbench profile --models mlp --batch-sizes 2 --threads 1 --steps 3
  // --trace-steps 2 --warmup-steps 1` before schema 5 (main at 2bd6d8e).
  const std::string path = std::string(FB_SOURCE_DIR) + "/tests/data/profile_schema4.h5";
  auto r = ReadProfile(path);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->schema_version == 4);
  REQUIRE(r->executor.size() == 1);
  CHECK(r->executor[0].has_transfer_cost);
  CHECK(r->executor[0].transfer_ns > 0);
  CHECK(r->executor[0].transfer_points.empty());
  auto m = ProfileCostModel::Create(*r, 1, path);
  REQUIRE(m.ok());
  SimCosts c;
  SetProfileTransferCosts(*m, &c);  // the schema-4 linear costs
  CHECK(c.in_process_transfer_curve_s.empty());
  CHECK(c.in_process_transfer_s == Approx(r->executor[0].transfer_ns * 1e-9));
  CHECK(c.compress_s_per_byte == Approx(r->executor[0].compress_ns_per_byte * 1e-9));
}

TEST_CASE("The transfer probe measures every size on four devices",
          "[sim][profile][transfer_curve]") {
  TransferProbeOptions o;
  o.runs = 2;
  o.blocks = 1;
  auto c = MeasureTransferCosts(o);
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  REQUIRE(c->samples.size() == 5);
  CHECK(c->samples.front().bytes == 1024);
  CHECK(c->samples.back().bytes == 4 << 20);
  for (const TransferProbeSample& s : c->samples) {
    CHECK(std::isfinite(s.transfer_ns));
    CHECK(s.compress_ns > 0);  // the pass inserted the conversions and they were traced
    CHECK(s.decompress_ns > 0);
  }
  REQUIRE(c->transfer.points.size() == 5);
  o.devices = 1;
  auto bad = MeasureTransferCosts(o);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Contains("expected devices >= 2"));
  CHECK_THAT(bad.status().message(), Contains("got devices 1"));
}

}  // namespace
}  // namespace fb::sim
