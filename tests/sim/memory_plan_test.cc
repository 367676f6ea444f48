// Per-device memory in the replay (sim/memory_plan.h): the peak of a graph with a hand-computed
// peak, out-of-memory reported as a device would, and --check-memory on a platform without
// capacities.
#include "sim/memory_plan.h"

#include <filesystem>
#include <fstream>

#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::PlatformPath;
using test::TableCosts;

// On one device: a (1000 B) -> b (2000 B) -> c (4000 B); d = b + c (8000 B, read by nobody);
// v: a Variable of 500 B, resident.
const char* kChain = R"({"nodes": [
  {"name": "v", "op": "Variable", "device": "/device:CPU:0", "attrs": {"shape": {"shape": [125]}, "dtype": {"type": "float"}}},
  {"name": "a", "op": "Const", "device": "/device:CPU:0", "attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [1]}}, "dtype": {"type": "float"}}},
  {"name": "b", "op": "Identity", "device": "/device:CPU:0", "inputs": ["a"], "attrs": {"T": {"type": "float"}}},
  {"name": "c", "op": "Identity", "device": "/device:CPU:0", "inputs": ["b"], "attrs": {"T": {"type": "float"}}},
  {"name": "d", "op": "Add", "device": "/device:CPU:0", "inputs": ["b", "c"], "attrs": {"T": {"type": "float"}}}
]})";

SimCosts ChainCosts() {
  return TableCosts({{"a", 1.0}, {"b", 1.0}, {"c", 1.0}, {"d", 1.0}},
                    {{"v", 500}, {"a", 1000}, {"b", 2000}, {"c", 4000}, {"d", 8000}});
}

std::string PlatformWithMemory(int64_t bytes) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("fb_mem_" + std::to_string(getpid()) + ".xml");
  std::ofstream(path) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="a" speed="1Gf">
      <prop id="device_name" value="/job:localhost/replica:0/task:0/device:CPU:0"/>
      <prop id="memory_bytes" value=")" << bytes << R"("/>
    </host>
  </zone>
</platform>
)";
  return path;
}

struct MemoryRun {
  std::string status;
  int64_t peak = -1, capacity = -1;
};

MemoryRun RunChain(const std::string& platform, bool check_memory) {
  const std::string text = test::TextFromChild([&] {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(kChain));
    if (!g.ok()) return g.status().ToString();
    Simulation sim;
    if (Status s = sim.LoadPlatform(platform); !s.ok()) return s.ToString();
    SimRunOptions o;
    o.check_memory = check_memory;
    auto r = sim.Run(**g, ChainCosts(), o);
    if (!r.ok()) return r.status().ToString();
    return "OK " + std::to_string(r->device_peak_bytes[0]) + " " +
           std::to_string(r->device_capacity_bytes[0]);
  });
  MemoryRun out;
  if (text.rfind("OK ", 0) != 0) {
    out.status = text;
    return out;
  }
  out.status = "OK";
  std::sscanf(text.c_str(), "OK %ld %ld", &out.peak, &out.capacity);
  return out;
}

TEST_CASE("Peak memory of a replayed step matches the hand-computed peak", "[sim][memory]") {
  const std::string platform = PlatformWithMemory(1 << 20);
  MemoryRun r = RunChain(platform, true);
  std::filesystem::remove(platform);
  REQUIRE(r.status == "OK");
  // v 500 resident; a +1000; b +2000 then a freed; c +4000 (b still read by d): 6500;
  // d +8000 while b and c are live: 14500, the peak; then b, c and d are freed.
  CHECK(r.peak == 14500);
  CHECK(r.capacity == (1 << 20));
}

TEST_CASE("Out of memory is reported as a device would: device and need and capacity named", "[sim][memory]") {
  const std::string platform = PlatformWithMemory(10000);
  MemoryRun r = RunChain(platform, false);
  std::filesystem::remove(platform);
  CHECK_THAT(r.status, Catch::StartsWith("ResourceExhausted"));
  CHECK_THAT(r.status, Catch::Contains("OOM on device /job:localhost/replica:0/task:0/device:CPU:0"));
  CHECK_THAT(r.status, Catch::Contains("needs 14500 bytes, capacity 10000"));
  CHECK_THAT(r.status, Catch::Contains("node 'd'"));
}

TEST_CASE("The check-memory option refuses a platform whose devices declare no capacity", "[sim][memory]") {
  MemoryRun r = RunChain(PlatformPath("two_hosts.xml"), true);
  CHECK_THAT(r.status, Catch::Contains("--check-memory"));
  CHECK_THAT(r.status, Catch::Contains("two_hosts.xml"));
  CHECK_THAT(r.status, Catch::Contains("host 'a'"));
  CHECK_THAT(r.status, Catch::Contains("memory_bytes"));
  // Without the flag the same platform runs and reports the peak (capacity unknown: 0).
  MemoryRun ok = RunChain(PlatformPath("two_hosts.xml"), false);
  REQUIRE(ok.status == "OK");
  CHECK(ok.peak == 14500);
  CHECK(ok.capacity == 0);
}

}  // namespace
}  // namespace fb::sim
