#pragma once
// DeviceDesc: what placement, partitioning, the cost model and the simulator know about a device
// (whitepaper 3.2.1): its name and type, and its performance. Descriptions are plain data, so
// the simulator can place onto devices that this machine does not have.
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

}  // namespace fb
