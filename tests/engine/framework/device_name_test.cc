// Device names and partial constraints (whitepaper 3, 4.3).
#include <catch2/catch.hpp>

#include "engine/framework/device_name.h"

namespace fb {
namespace {

ParsedDeviceName Parse(const std::string& s) {
  auto p = ParseDeviceName(s);
  INFO(s << ": " << p.status().ToString());
  REQUIRE(p.ok());
  return *p;
}

TEST_CASE("Full, partial and legacy device names parse", "[framework][device_name]") {
  ParsedDeviceName full = Parse("/job:worker/replica:0/task:17/device:CPU:2");
  CHECK(full.IsFullySpecified());
  CHECK(full.job == "worker");
  CHECK(full.task == 17);
  CHECK(full.type == "CPU");
  CHECK(full.id == 2);
  CHECK(full.ToString() == "/job:worker/replica:0/task:17/device:CPU:2");

  ParsedDeviceName any_gpu = Parse("/device:GPU:*");
  CHECK(any_gpu.has_type);
  CHECK_FALSE(any_gpu.has_id);
  ParsedDeviceName legacy = Parse("/gpu:1");
  CHECK(legacy.type == "GPU");
  CHECK(legacy.id == 1);
  CHECK_FALSE(Parse("").has_job);
  CHECK(LocalDeviceName("CPU", 3) == "/job:localhost/replica:0/task:0/device:CPU:3");
}

TEST_CASE("Malformed device names are rejected naming the string", "[framework][device_name][errors]") {
  for (const char* bad : {"job:worker", "/job:worker/task:x", "/device:CPU:-1", "/planet:mars"}) {
    auto p = ParseDeviceName(bad);
    INFO(bad);
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.status().message(), Catch::Contains(bad));
  }
}

TEST_CASE("Constraints match and merge (4.3)", "[framework][device_name]") {
  ParsedDeviceName dev = Parse("/job:worker/replica:0/task:17/device:GPU:0");
  CHECK(DeviceNameMatches(dev, Parse("/device:GPU:*")));
  CHECK(DeviceNameMatches(dev, Parse("/job:worker/task:17")));
  CHECK_FALSE(DeviceNameMatches(dev, Parse("/job:ps")));
  CHECK_FALSE(DeviceNameMatches(dev, Parse("/device:CPU:0")));

  auto merged = MergeDeviceNames(Parse("/job:worker"), Parse("/device:GPU:1"));
  REQUIRE(merged.ok());
  CHECK(merged->ToString() == "/job:worker/device:GPU:1");
  auto conflict = MergeDeviceNames(Parse("/device:GPU:0"), Parse("/device:CPU:0"));
  REQUIRE_FALSE(conflict.ok());
  CHECK_THAT(conflict.status().message(), Catch::Contains("GPU") && Catch::Contains("CPU"));
}

}  // namespace
}  // namespace fb
