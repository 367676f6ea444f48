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

// b (local, 1 s) is listed before a (1 s), whose output c needs on the other device.
std::string TwoRootsGraph() {
  return std::string(R"({"nodes": [
    {"name": "b", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "a", "op": "Const", "device": "/device:CPU:0", )" + test::kScalarConst + R"(},
    {"name": "c", "op": "Identity", "device": "/device:CPU:1", "inputs": ["a"], "attrs": {"T": {"type": "float"}}}
  ]})";
}

double Makespan(const std::string& schedule) {
  auto g = MakeGraph(TwoRootsGraph());
  Simulation sim;
  REQUIRE(sim.LoadPlatform(PlatformPath("two_hosts.xml")).ok());
  SimRunOptions opts;
  opts.workload.schedule = schedule;
  auto r = sim.Run(*g, TableCosts({{"a", 1.0}, {"b", 1.0}, {"c", 1.0}}, {}), opts);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return r->makespan_s;
}

TEST_CASE("fifo runs nodes in ready order so c waits for b and a", "[sim]") {
  CHECK(Makespan("fifo") == Approx(1 + 1 + 0.001 + 1).epsilon(1e-9));
}

TEST_CASE("critical-path runs a first so that c overlaps b", "[sim]") {
  CHECK(Makespan("critical-path") == Approx(1 + 0.001 + 1).epsilon(1e-9));
}

TEST_CASE("alap-recv keeps a transfer on the critical path on time", "[sim]") {
  CHECK(Makespan("alap-recv") == Approx(1 + 0.001 + 1).epsilon(1e-9));
}

TEST_CASE("fifo runs an inexpensive node ahead of an expensive one that was ready first", "[sim]") {
  // As the engine's executor runs kernels under Executor::kInexpensiveNs inline: `small` (1 us)
  // runs before `big` (1 s, listed first), so c on the other device overlaps big.
  auto g = MakeGraph(std::string(R"({"nodes": [
    {"name": "big", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "small", "op": "Const", "device": "/device:CPU:0", )" + test::kScalarConst + R"(},
    {"name": "c", "op": "Identity", "device": "/device:CPU:1", "inputs": ["small"], "attrs": {"T": {"type": "float"}}}
  ]})");
  Simulation sim;
  REQUIRE(sim.LoadPlatform(PlatformPath("two_hosts.xml")).ok());
  SimRunOptions opts;
  opts.workload.schedule = "fifo";
  auto r = sim.Run(*g, TableCosts({{"big", 1.0}, {"small", 1e-6}, {"c", 1.0}}, {}), opts);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // small (1 us) + 1 ms latency + c (1 s); big ends at 1 s + 1 us on device 0.
  CHECK(r->makespan_s == Approx(1e-6 + 0.001 + 1.0).epsilon(1e-9));
}

TEST_CASE("Unknown schedules and platforms are reported by name", "[sim]") {
  auto g = MakeGraph(TwoRootsGraph());
  {
    Simulation sim;
    REQUIRE(sim.LoadPlatform(PlatformPath("two_hosts.xml")).ok());
    SimRunOptions opts;
    opts.workload.schedule = "lifo";
    auto r = sim.Run(*g, TableCosts({}, {}), opts);
    REQUIRE(!r.ok());
    CHECK(r.status().ToString().find("unknown schedule 'lifo' (known: alap-recv, critical-path, fifo)") !=
          std::string::npos);
  }
  Simulation sim;
  Status s = sim.LoadPlatform("/nonexistent/p.xml");
  CHECK(s.ToString().find("platform file '/nonexistent/p.xml' does not exist") != std::string::npos);
  CHECK(ResolvePlatformPath("no_such_platform").status().ToString().find("no_such_platform") !=
        std::string::npos);
}

}  // namespace
}  // namespace fb::sim
