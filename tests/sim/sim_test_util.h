#pragma once
// Helpers for simulator tests: graphs from JSON, hand-given costs by node name, platform paths.
#include <map>
#include <memory>
#include <string>

#include "sim/simulator.h"
#include "tests/test_util.h"

namespace fb::sim::test {

inline std::string PlatformPath(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/sim/platforms/" + name;
}

inline std::unique_ptr<Graph> MakeGraph(const std::string& json) {
  auto g = Graph::FromGraphDef(fb::test::ParseGraph(json));
  INFO(g.status().ToString());
  REQUIRE(g.ok());
  return std::move(*g);
}

// Costs from tables: seconds per node name (default 0) and output bytes per node name
// (default 0), the same on every device.
inline SimCosts TableCosts(std::map<std::string, double> seconds,
                           std::map<std::string, int64_t> bytes) {
  SimCosts c;
  c.compute_s = [seconds](const Node& n, const DeviceDesc&) {
    auto it = seconds.find(n.name());
    return it == seconds.end() ? 0.0 : it->second;
  };
  c.output_bytes = [bytes](const Node& n, int) -> int64_t {
    auto it = bytes.find(n.name());
    return it == bytes.end() ? 0 : it->second;
  };
  return c;
}

inline const char* kScalarConst =
    R"("attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [1]}}, "dtype": {"type": "float"}})";

}  // namespace fb::sim::test
