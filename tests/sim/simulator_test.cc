// Simulator replay on tiny platforms with hand-computed (golden) times, SimGrid style.
#include "sim/simulator.h"

#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

// x (device 0) -> y (device 1): one _Send/_Recv pair over the 100 MB/s, 1 ms link.
std::string TwoDeviceGraph() {
  return std::string(R"({"nodes": [
    {"name": "x", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "y", "op": "Identity", "device": "/device:CPU:1", "inputs": ["x"], "attrs": {"T": {"type": "float"}}}
  ]})";
}

TEST_CASE("Two-device graph: makespan is compute + latency + size / bandwidth", "[sim]") {
  auto g = MakeGraph(TwoDeviceGraph());
  Simulation sim;
  REQUIRE(sim.LoadPlatform(PlatformPath("two_hosts.xml")).ok());
  SimRunOptions opts;
  opts.record_events = true;
  auto r = sim.Run(*g, TableCosts({{"x", 0.5}, {"y", 0.25}}, {{"x", 1000000}}), opts);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // 0.5 s (x) + 1 ms latency + 1e6 B / 1e8 B/s + 0.25 s (y).
  CHECK(r->makespan_s == Approx(0.5 + 0.001 + 0.01 + 0.25).epsilon(1e-9));
  REQUIRE(r->step_times_s.size() == 1);
  CHECK(r->step_times_s[0] == Approx(0.761).epsilon(1e-9));
  CHECK(r->transfers == 1);
  CHECK(r->wire_bytes == 1000000);
  CHECK(r->link_bytes.at("ab") == 1000000);
  CHECK(r->device_busy_s[0] == Approx(0.5));
  CHECK(r->device_busy_s[1] == Approx(0.25));
  CHECK(r->node_executions == 4);  // x, _Send, _Recv, y
}

}  // namespace
}  // namespace fb::sim
