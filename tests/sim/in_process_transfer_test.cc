// The executor's cost per transfer between two devices of one process (SimCosts::
// in_process_transfer_s, ProfileExecutor::transfer_ns): hand-computed makespans, SimGrid style,
// the profile field's round trip and its absence from older profiles.
#include <fstream>

#include "engine/client/math_ops.h"
#include "engine/client/scope.h"
#include "engine/client/state_ops.h"
#include "sim/executor_cost_probe.h"
#include "sim/profile.h"
#include "sim/profile_cost_model.h"
#include "sim/profile_sim_costs.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using Catch::Matchers::Contains;
using test::MakeGraph;
using test::PlatformPath;
using test::RunSimInChild;
using test::TableCosts;

// A chain x (CPU:0) -> y (CPU:1) -> z (CPU:0) -> w (CPU:1): three transfers.
std::string ChainGraph() {
  const std::string identity = R"("attrs": {"T": {"type": "float"}})";
  return std::string(R"({"nodes": [
    {"name": "x", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "y", "op": "Identity", "device": "/device:CPU:1", "inputs": ["x"], )" + identity + R"(},
    {"name": "z", "op": "Identity", "device": "/device:CPU:0", "inputs": ["y"], )" + identity + R"(},
    {"name": "w", "op": "Identity", "device": "/device:CPU:1", "inputs": ["z"], )" + identity + R"(}
  ]})";
}

// two_hosts.xml (1 ms, 100 MB/s between its two devices) with the devices in tasks 0 and 1: two
// processes.
std::string TwoProcessPlatform(const fb::test::TempDir& dir) {
  std::ifstream in(PlatformPath("two_hosts.xml"));
  std::string xml((std::istreambuf_iterator<char>(in)), {});
  const std::string from = "task:0/device:CPU:1", to = "task:1/device:CPU:1";
  const size_t at = xml.find(from);
  REQUIRE(at != std::string::npos);
  xml.replace(at, from.size(), to);
  const std::string path = dir.file("two_processes.xml");
  std::ofstream(path) << xml;
  return path;
}

StatusOr<SimResult> RunChain(const std::string& platform, double transfer_s,
                             double s_per_byte = 0, int64_t free_bytes = 0) {
  return RunSimInChild([&]() -> StatusOr<SimResult> {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(ChainGraph()));
    if (!g.ok()) return g.status();
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(platform));
    SimCosts costs = TableCosts({{"x", 0.25}, {"y", 0.25}, {"z", 0.25}, {"w", 0.25}},
                                {{"x", 1000000}, {"y", 1000000}, {"z", 1000000}});
    costs.in_process_transfer_s = transfer_s;
    costs.in_process_transfer_s_per_byte = s_per_byte;
    costs.in_process_transfer_free_bytes = free_bytes;
    return sim.Run(**g, costs, SimRunOptions{});
  });
}

TEST_CASE("Each transfer between devices of one process costs the receiver the executor's time",
          "[sim][in_process_transfer]") {
  // Hand computed: four nodes of 0.25 s, three transfers of 1 ms latency + 1e6 B / 1e8 B/s, each
  // followed by its _Recv's 2 ms on the receiving device: 1 + 3 * (0.011 + 0.002) s.
  auto charged = RunChain(PlatformPath("two_hosts.xml"), 0.002);
  INFO(charged.status().ToString());
  REQUIRE(charged.ok());
  REQUIRE(charged->step_times_s.size() == 1);
  CHECK(charged->transfers == 3);
  CHECK(charged->step_times_s[0] == Approx(1.0 + 3 * 0.013).epsilon(1e-9));
  // Without the cost: 1 + 3 * 0.011 s.
  auto free = RunChain(PlatformPath("two_hosts.xml"), 0);
  REQUIRE(free.ok());
  CHECK(free->step_times_s[0] == Approx(1.0 + 3 * 0.011).epsilon(1e-9));
}

TEST_CASE("A large in-process transfer costs the receiver per byte beyond the free bytes",
          "[sim][in_process_transfer]") {
  // Hand computed: each of the three 1e6-byte transfers costs 2 ms + (1e6 - 2.5e5) B * 4e-9 s/B
  // = 5 ms on the receiver: 1 + 3 * (0.011 + 0.005) s.
  auto r = RunChain(PlatformPath("two_hosts.xml"), 0.002, 4e-9, 250000);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->step_times_s[0] == Approx(1.0 + 3 * 0.016).epsilon(1e-9));
  // Tensors within the free bytes pay the fixed part only.
  auto small = RunChain(PlatformPath("two_hosts.xml"), 0.002, 4e-9, 1000000);
  REQUIRE(small.ok());
  CHECK(small->step_times_s[0] == Approx(1.0 + 3 * 0.013).epsilon(1e-9));
}

TEST_CASE("Transfers between processes do not pay the in-process transfer cost",
          "[sim][in_process_transfer]") {
  fb::test::TempDir dir;
  auto r = RunChain(TwoProcessPlatform(dir), 0.002, 4e-9, 0);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->transfers == 3);
  CHECK(r->step_times_s[0] == Approx(1.0 + 3 * 0.011).epsilon(1e-9));
}

Profile ProfileWithTransferCost() {
  Profile p;
  p.host = "test";
  p.points = {{"m", "mm", "MatMul", 1, 1, 100, 800, 3000, 5}};
  p.steps = {{"m", 1, 1, 9000, 9100, 3000, 20, 0.5, 1, 0}};
  ProfileExecutor e;
  e.threads = 1;
  e.has_step_costs = true;
  e.run_ns = 4000;
  e.node_gap_ns = 100;
  e.handoff_ns = 2000;
  e.has_transfer_cost = true;
  e.transfer_ns = 9500;
  e.transfer_ns_per_byte = 0.1;
  e.compress_ns_per_byte = 0.25;
  e.decompress_ns_per_byte = 0.2;
  p.executor = {e};
  return p;
}

TEST_CASE("Profile round trip keeps the transfer cost", "[sim][profile][in_process_transfer]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  Profile p = ProfileWithTransferCost();
  ProfileExecutor unmeasured;  // as read from a profile before schema 4
  unmeasured.threads = 2;
  p.executor.push_back(unmeasured);
  REQUIRE(WriteProfile(path, p).ok());
  auto r = ReadProfile(path);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->schema_version == kProfileSchemaVersion);
  REQUIRE(r->executor.size() == 2);
  CHECK(r->executor[0].has_transfer_cost);
  CHECK(r->executor[0].transfer_ns == 9500);
  CHECK(r->executor[0].transfer_ns_per_byte == 0.1);
  CHECK(r->executor[0].compress_ns_per_byte == 0.25);
  CHECK(r->executor[0].decompress_ns_per_byte == 0.2);
  CHECK(r->executor[0].handoff_ns == 2000);
  CHECK_FALSE(r->executor[1].has_transfer_cost);
  CHECK(r->executor[1].transfer_ns == 0);
}

TEST_CASE("The profile cost model passes the transfer cost to the simulator",
          "[sim][profile][in_process_transfer]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  REQUIRE(WriteProfile(path, ProfileWithTransferCost()).ok());
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({-1, 5}));
  auto w = ops::Const(root.WithOpName("w"), Tensor(DataType::kFloat, {5, 10}));
  ops::MatMul(root.WithOpName("mm"), x, w);
  REQUIRE(root.status().ok());
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  auto h = MakeProfileSimCosts(**g, {{"x", TensorShape({4, 5})}}, "profile:" + path);
  INFO(h.status().ToString());
  REQUIRE(h.ok());
  CHECK(h->costs.in_process_transfer_s == Approx(9500e-9));
  CHECK(h->costs.in_process_transfer_s_per_byte == Approx(0.1e-9));
  CHECK(h->costs.in_process_transfer_free_bytes == kTransferProbeBytes);
  CHECK(h->costs.compress_s_per_byte == Approx(0.25e-9));
  CHECK(h->costs.decompress_s_per_byte == Approx(0.2e-9));
  CHECK_THAT(h->description, Contains("9.5 us + 0.1 ns per byte beyond 262144 per transfer "
                                      "between devices of one process"));
  // step-costs=off: the schema-1 model, without any measured executor cost.
  auto off = MakeProfileSimCosts(**g, {{"x", TensorShape({4, 5})}},
                                 "profile:" + path + ",step-costs=off");
  REQUIRE(off.ok());
  CHECK(off->costs.in_process_transfer_s == 0);
  CHECK(off->costs.in_process_transfer_s_per_byte == 0);
  CHECK(off->costs.compress_s_per_byte == 0);
}

TEST_CASE("A schema-3 profile still loads, without a transfer cost",
          "[sim][profile][in_process_transfer]") {
  // Written by `flowbench profile --models mlp --batch-sizes 2 --threads 1 --steps 3
  // --trace-steps 2 --warmup-steps 1` before schema 4 (commit 61d9198).
  const std::string path = std::string(FB_SOURCE_DIR) + "/tests/data/profile_schema3.h5";
  auto r = ReadProfile(path);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->schema_version == 3);
  REQUIRE(r->executor.size() == 1);
  CHECK(r->executor[0].has_step_costs);
  CHECK(r->executor[0].run_ns > 0);
  CHECK_FALSE(r->executor[0].has_transfer_cost);
  CHECK(r->executor[0].transfer_ns == 0);
  CHECK(r->steps.size() == 1);
  CHECK(r->points.size() == 76);
  auto m = ProfileCostModel::Create(*r, 1, path);
  REQUIRE(m.ok());
  CHECK(m->uses_step_costs());
  CHECK(m->InProcessTransferNs() == 0);
}

TEST_CASE("The transfer cost is measured on four devices", "[sim][profile][in_process_transfer]") {
  auto e = MeasureExecutorCosts(1, 20);
  INFO(e.status().ToString());
  REQUIRE(e.ok());
  CHECK(e->has_transfer_cost);
  CHECK(std::isfinite(e->transfer_ns));
  CHECK(e->transfer_ns >= 0);
  CHECK(e->transfer_ns < 1e7);  // under 10 ms per transfer even on a loaded machine
  for (double v : {e->transfer_ns_per_byte, e->compress_ns_per_byte, e->decompress_ns_per_byte}) {
    CHECK(std::isfinite(v));
    CHECK(v >= 0);
    CHECK(v < 1e3);  // under 1 us per byte
  }
  CHECK(e->compress_ns_per_byte > 0);  // a 4 MiB kernel takes measurable time
  REQUIRE(e->transfer_points.size() == 5);  // 1 KiB to 4 MiB (schema 5)
  CHECK(e->transfer_points.front().devices == 4);
  CHECK(e->transfer_points.back().bytes == 4 << 20);
}

}  // namespace
}  // namespace fb::sim
