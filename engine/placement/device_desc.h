#pragma once
// DeviceDesc and LinkDesc: what placement, partitioning, the cost model and the simulator know
// about devices and the links between them (whitepaper 3.2.1: the cost model estimates
// computation time per device and "the communication costs"). Descriptions are plain data, so
// the simulator can place onto devices that this machine does not have. Readable config files:
// experiments/devices/*.json and experiments/links/*.json (engine/placement/device_config.h).
#include <cstdint>
#include <string>
#include <vector>

namespace fb {

struct DeviceDesc {
  std::string name;  // full device name, "/job:localhost/replica:0/task:0/device:CPU:0"
  std::string type;  // "CPU", "GPU"
  int64_t memory_limit_bytes = 0;     // 0: unlimited
  double peak_flops_per_s = 50e9;     // FLOP/s
  double memory_bandwidth_bytes_per_s = 20e9;
  double launch_overhead_ns = 1000;   // fixed cost per kernel
};

using DeviceSet = std::vector<DeviceDesc>;

// A directed link from `src` to `dst` (device names, full or partial: "/device:GPU:*" matches
// every GPU; "" matches any device). Moving b bytes takes latency_ns + b / bandwidth (s -> ns).
struct LinkDesc {
  std::string src;
  std::string dst;
  double latency_ns = 10000;
  double bandwidth_bytes_per_s = 10e9;
};

// The links of a platform: the first listed link whose src and dst match is used, else
// `default_link`. Transfers within one device cost nothing.
struct LinkSet {
  std::vector<LinkDesc> links;
  LinkDesc default_link;
  // The link used from device `src` to device `dst` (full names).
  const LinkDesc& Find(const std::string& src, const std::string& dst) const;
};

}  // namespace fb
