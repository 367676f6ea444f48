#pragma once
// Simulated platforms (SimGrid XML, sim/platforms/*.xml): which SimGrid hosts are flowbench
// devices and how fast they are. A host is one device; its SimGrid speed is the device's peak
// FLOP/s and its properties give the rest (all optional):
//
//   <host id="gpu0" speed="15.7Tf">
//     <prop id="device_type" value="GPU"/>                       CPU (default), GPU, ...
//     <prop id="device_name" value="/job:worker/replica:0/task:0/device:GPU:0"/>
//     <prop id="memory_bandwidth_bytes_per_s" value="9e11"/>
//     <prop id="launch_overhead_ns" value="5000"/>
//     <prop id="memory_bytes" value="17179869184"/>
//     <prop id="device_model" value="NVIDIA H200, sm_90"/>      what a profile must describe
//     <prop id="message_overhead_ns" value="150000"/>             per message received (ns)
//     <prop id="serialize_bytes_per_s" value="2e9"/>              per byte received (bytes/s)
//     <prop id="message_latency_ns" value="2e6"/>                 wake-up per burst received (ns)
//     <prop id="send_serialize_bytes_per_s" value="2e9"/>         per byte sent, same handler
//   </host>
//
// A device that shares a machine's cores with other devices names the machine's multi-core
// host in `shares_cores_with` (and `exec_threads`, the cores one execution may use): its
// executions run there (sim/core_sharing.h). Hosts of a <cluster> get the cluster's <prop>s.
// Without device_name, host i (in SimGrid's host order) is
// "/job:worker/replica:0/task:i/device:<type>:0". Hosts with property
// `device_type="none"` are not devices (e.g. a storage node).
// Units: FLOP/s, bytes/s, ns, bytes. The two message properties: sim/message_cost.h.
#include <string>
#include <vector>

#include "engine/framework/status.h"
#include "engine/placement/device_desc.h"
#include "sim/core_sharing.h"
#include "sim/message_cost.h"

namespace simgrid::s4u {
class Host;
class Engine;
}  // namespace simgrid::s4u

namespace fb::sim {

struct SimDevice {
  simgrid::s4u::Host* host = nullptr;
  DeviceDesc desc;       // desc.type is the platform's type ("GPU")
  std::string host_name;
  // Host property device_model ("" when absent): the device a `--cost-model profile:FILE` must
  // have profiled to predict this host (sim/profile_device.h), e.g. "NVIDIA H200, sm_90".
  std::string model;
  // Host properties shares_cores_with / exec_threads: the machine whose cores the device's
  // executions run on (sim/core_sharing.h); machine == nullptr: its own host.
  CoreShare cores;
  // Host properties message_overhead_ns, serialize_bytes_per_s, message_latency_ns and
  // send_serialize_bytes_per_s (sim/message_cost.h).
  MessageCost message_cost;
};

// The devices of the platform loaded into `engine`, in SimGrid's host order. InvalidArgument
// naming the host for an unparsable property (message_overhead_ns, serialize_bytes_per_s,
// message_latency_ns and send_serialize_bytes_per_s: negative, NaN, infinite or too large, sim/message_cost.h; those of
// ReadCoreShare, sim/core_sharing.h) or a non-positive speed; FailedPrecondition when the
// platform has no device.
StatusOr<std::vector<SimDevice>> PlatformDevices(const simgrid::s4u::Engine& engine);

// Checks the resources of the platform loaded into `engine` from `path`: every link's bandwidth
// is finite and > 0 and its latency finite and >= 0, every host's speed finite and > 0 (SimGrid
// aborts mid-simulation otherwise). InvalidArgument naming the file and the link or host.
Status CheckPlatformResources(const simgrid::s4u::Engine& engine, const std::string& path);

// The path of a platform given by the user: an existing file, else sim/platforms/<name> or
// sim/platforms/<name>.xml of the source tree. NotFound naming what was tried ("platform file
// '<name>' does not exist ..."), InvalidArgument for an empty name.
StatusOr<std::string> ResolvePlatformPath(const std::string& name);

}  // namespace fb::sim
