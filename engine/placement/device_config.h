#pragma once
// Readable device and link config files (experiments/devices/*.json, experiments/links/*.json).
//
//   {"devices": [{"name": "/job:localhost/replica:0/task:0/device:CPU:0", "type": "CPU",
//                 "memory_limit_bytes": 0, "peak_flops_per_s": 5e10,
//                 "memory_bandwidth_bytes_per_s": 2e10, "launch_overhead_ns": 1000},
//                {"name": "/device:GPU:0", "count": 4, ...}],
//    "links": [{"src": "/device:CPU:*", "dst": "/device:GPU:*", "latency_ns": 10000,
//               "bandwidth_bytes_per_s": 1.2e10}],
//    "default_link": {"latency_ns": 20000, "bandwidth_bytes_per_s": 1e10}}
//
// A device entry with "count": k expands into k devices whose ids count up from the id in
// "name" (partial names are completed to /job:localhost/replica:0/task:0). Every field but name
// has the DeviceDesc default. A link file holds only "links" and "default_link". Units: bytes,
// FLOP/s, bytes/s, ns.
#include <string>

#include "engine/placement/device_desc.h"
#include "engine/framework/status.h"

namespace fb {

struct PlatformDesc {
  DeviceSet devices;
  LinkSet links;
};

// Reads a device config (devices and, optionally, links). InvalidArgument naming the file and
// the entry for malformed JSON, a missing name, a duplicate device or a value out of its range:
// count a whole number in [1, 9999], FLOP/s and bytes/s in [1, 1e21], latency_ns and
// launch_overhead_ns in [0, 1e12], memory_limit_bytes in [0, 1e18];
// NotFound naming the file if it cannot be opened.
StatusOr<PlatformDesc> ReadPlatformFile(const std::string& path);
// Reads a link config into `links` (replacing its links and default).
Status ReadLinkFile(const std::string& path, LinkSet* links);
// The same from JSON text (`source` names it in errors).
StatusOr<PlatformDesc> ParsePlatformJson(const std::string& text, const std::string& source);

// A `--devices` flag: "cpu:N" splits this process's machine into N CPU devices, each with its
// own share of the hardware threads (device.h); "gpu:N" is one CPU device (the host: input
// pipeline, feeds, fetches, checkpoints) and the first N GPUs (the model; see
// engine/runtime/local_devices.h). Type names are case insensitive.
struct DevicesFlag {
  std::string type = "CPU";  // "CPU" or "GPU"
  int count = 1;             // N >= 1
};
// InvalidArgument quoting the flag for anything but cpu:N or gpu:N with 1 <= N <= 9999.
StatusOr<DevicesFlag> ParseDevicesFlag(const std::string& spec);

struct DeviceOptions;
// Applies a `--devices` flag to `options`: num_cpu_devices N for cpu:N, 1 for gpu:N (the GPUs
// come from the GPU device factory). Errors: ParseDevicesFlag's.
Status ApplyDevicesFlag(const std::string& spec, DeviceOptions* options);

// N identical devices of `type` named LocalDeviceName(type, 0..N-1) with default performance:
// what `--devices cpu:N` creates.
DeviceSet LocalDevices(const std::string& type, int n);
// The devices a `--devices` flag creates, with default performance: cpu:N's N CPUs, or gpu:N's
// host CPU:0 followed by GPU:0..N-1 (for tools that place without running, `flowbench place`).
DeviceSet FlagDevices(const DevicesFlag& flag);

}  // namespace fb
