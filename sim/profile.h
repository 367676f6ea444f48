#pragma once
// A performance profile of one host (issue 17): what `flowbench profile` measured and what the
// simulator's `--cost-model profile:FILE` (sim/profile_cost_model.h) and `flowbench sim-platform
// profile:FILE` (sim/profile_calibration.h) read. One HDF5 file per host and device, schema in
// docs/simulator.md ("Profiles"):
//
//   root attributes   format = "flowbench-profile", schema_version (int, kProfileSchemaVersion),
//                     device_type ("CPU" or "GPU"), device (the profiled device's description,
//                     e.g. "NVIDIA H200, sm_90, 143155 MiB"; the host name for a CPU), mode
//                     (the benchmark mode profiled: "forward", "forward-backward" or "train"),
//                     all fixed-size strings read back (since version 2; a version-1 file reads
//                     as device_type "CPU", device "", mode "train", what it measured);
//                     host, created, command_line (strings, for people; the reader ignores them)
//   /points           ProfilePointRecord[]: one row per (model, batch, threads, node): the node's
//                     op type, its FLOPs and bytes accessed per execution (the analytic cost
//                     model's formulas, engine/placement/op_cost.h, over the shapes of that
//                     configuration) and its mean measured duration over the typical traced steps
//   /steps            ProfileStepRecord[]: per (model, batch, threads): the median and mean of
//                     the untraced steps, the sum of the node means, the load average and, from
//                     schema 2, the node and hand-off counts
//   /executor         ProfileExecutorRecord[]: per thread count, the executor's fixed costs
//                     (sim/executor_cost_probe.h): on null graphs (one NoOp; a chain and a
//                     fan-out of NoOps) and, from schema 2, on small kernels with a feed and a
//                     fetch (run_ns, node_gap_ns, handoff_ns)
//
// Versions: 1 (no run_ns, node_gap_ns, handoff_ns in /executor) is still read: its executor
// rows have has_step_costs = false and the simulator falls back to the fitted step correction
// alone (sim/profile_cost_model.h). 2 adds the three fields, and nodes and handoffs to /steps.
// 4 appends has_transfer_cost, transfer_ns, transfer_ns_per_byte, compress_ns_per_byte and
// decompress_ns_per_byte to /executor (a version 2-3 file reads with
// has_transfer_cost = false: no cost per transfer between devices of one process).
// 5 adds the table /transfers (sim/profile_transfers.h): per thread count and tensor size, what a
// transfer between devices of one process and its two conversions cost, measured on 4 devices
// busy with a step (sim/transfer_cost_probe.h); a version 1-4 file reads with no such points
// (the simulator then uses /executor's linear transfer_ns and per-byte fields).
//
// Strings are fixed-size NUL-padded fields of the compound records (h5py/pandas read them as
// bytes), so the reader never follows variable-length heap ids of an untrusted file.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb::sim {

// Version 5: version 4 and the /transfers table of measured transfer and conversion costs.
// Version 4: version 3 and the executor's cost per transfer between devices of one process.
// Version 3: the device_type, device and mode attributes and the executor's measured overheads.
// Still read: version 3, version 1 (neither) and both layouts that were called version 2 (one
// added the attributes to version 1's tables, the other the overheads without the attributes; a
// file with a device_type attribute is the first kind).
inline constexpr int64_t kProfileSchemaVersion = 5;
inline constexpr int64_t kOldestProfileSchemaVersion = 1;  // still read
inline constexpr const char* kProfileFormat = "flowbench-profile";

struct ProfilePoint {
  std::string model, node, op;  // model name, node name, op type
  int64_t batch = 0;
  int32_t threads = 1;
  double flops = 0;         // per execution
  double bytes = 0;         // bytes read plus written per execution
  double time_ns = 0;       // mean duration over the typical traced steps
  int32_t samples = 0;      // executions averaged
};

struct ProfileStep {
  std::string model;
  int64_t batch = 0;
  int32_t threads = 1;
  double median_step_ns = 0;  // untraced steps
  double mean_step_ns = 0;
  double node_sum_ns = 0;     // sum of the model's point times (one step's kernels)
  int32_t steps = 0;          // untraced steps timed
  double load_average = 0;    // 1-minute load average when the configuration finished
  // Schema 2 (0 in a schema-1 profile): the model's nodes with a point, and how many of them
  // are handed to another thread per step (sim/executor_handoffs.h; expensive: a point's time
  // above Executor::kInexpensiveNs).
  int32_t nodes = 0;
  int32_t handoffs = 0;
};

// The executor's fixed costs with `threads` threads, ns (how they are measured:
// sim/executor_cost_probe.h). Schema 1: `per_step_ns` is the median Run of a graph of one NoOp
// (the client's Run, the executor's start and completion); per node, the extra time per NoOp of
// a chain (each node made ready by its predecessor and run inline on the thread that finished
// it) and of a fan-out (independent nodes dispatched through the pool). Schema 2 adds, outside
// the kernels' traced durations: `run_ns` per Run with a feed and a fetch, `node_gap_ns` per
// node of a chain of small kernels, `handoff_ns` per expensive node handed to another thread
// (the wake-up latency).
// The tensor size of ProfileExecutor::transfer_ns (256 KiB: 65536 floats).
inline constexpr int64_t kTransferProbeBytes = 262144;

// Schema 5: one size of the transfer probe (sim/transfer_cost_probe.h), ns per transfer of a
// float32 tensor of `bytes` between CPU devices of one process, `devices` of them running the
// probe with ProfileExecutor::threads threads each: the transfer itself (its _Send and _Recv,
// the rendezvous, the receiver's copy into its allocator and wake-up), and with --compression
// the sender's _CompressFloat32 and the receiver's _DecompressFloat32 (each kernel with half the
// two extra nodes' executor time). Costs are non-decreasing in bytes within one thread count.
struct ProfileTransferPoint {
  int32_t devices = 0;
  double bytes = 0;
  double transfer_ns = 0;
  double compress_ns = 0;
  double decompress_ns = 0;
};

struct ProfileExecutor {
  int32_t threads = 1;
  double per_step_ns = 0;
  double per_node_inline_ns = 0;
  double per_node_pool_ns = 0;
  // Whether the next three were measured (MeasureExecutorCosts, a schema-2 profile); false for a
  // schema-1 profile, whose rows hold 0 there.
  bool has_step_costs = false;
  double run_ns = 0;
  double node_gap_ns = 0;
  double handoff_ns = 0;
  // Schema 4: whether the next three were measured (false in older profiles); the time one
  // tensor transfer between two CPU devices of one process adds to a chain of expensive kernels,
  // with `threads` threads per device: its _Send and _Recv nodes, the in-process rendezvous and
  // the hand-off to the receiving device's thread (sim/executor_cost_probe.h), ns.
  // The cost grows with the tensor beyond what a core's cache holds (the receiver reads it from
  // memory or the other core's cache): transfer_ns is the cost of a transfer of up to
  // kTransferProbeBytes (measured at that size), transfer_ns_per_byte the cost per byte beyond
  // it (from a second chain of 4 MiB tensors).
  bool has_transfer_cost = false;
  double transfer_ns = 0;
  double transfer_ns_per_byte = 0;
  // And the kernels of lossy 16-bit transfers (whitepaper 5.5, engine/passes/compression.h),
  // per byte of the float32 tensor: _CompressFloat32 on the sender, _DecompressFloat32 on the
  // receiver (traced kernel time of a 4 MiB tensor / its bytes), ns per byte.
  double compress_ns_per_byte = 0;
  double decompress_ns_per_byte = 0;
  // Schema 5 (empty before): the probe's sizes, smallest first; where present the simulator
  // interpolates them (sim/byte_cost_curve.h) instead of the linear fields above, which then
  // summarise them (transfer_ns: at kTransferProbeBytes; transfer_ns_per_byte: the slope beyond;
  // the conversions: per byte of the largest size).
  std::vector<ProfileTransferPoint> transfer_points;
};

struct Profile {
  int64_t schema_version = kProfileSchemaVersion;
  std::string host, created, command_line;  // written, not read back
  // What was profiled (written and read back from version 2 on; at most 255 bytes each):
  std::string device_type = "CPU";  // "CPU" or "GPU"
  std::string device;               // its description ("NVIDIA H200, sm_90, 143155 MiB"), or host
  std::string mode = "train";       // "forward", "forward-backward" or "train"
  std::vector<ProfilePoint> points;
  std::vector<ProfileStep> steps;
  std::vector<ProfileExecutor> executor;
};

// Writes `p` to `path` (replacing it) in the current layout (kProfileSchemaVersion), whatever
// version `p` was read from. Model, node and op
// names longer than their fields (63, 191, 63 bytes) and device attributes longer than 255 bytes
// are refused with InvalidArgument naming the name; Internal naming the file for HDF5 failures.
Status WriteProfile(const std::string& path, const Profile& p);

// Reads a profile written by WriteProfile. Errors name the file: NotFound (no such file), DataLoss
// (not HDF5, truncated), InvalidArgument (format attribute missing or not "flowbench-profile", a
// table missing or of the wrong type, a non-finite or negative time, FLOPs or bytes, a thread
// count or batch < 1; a device_type other than CPU or GPU, a mode other than the three above, a
// missing device attribute), FailedPrecondition (schema_version outside
// [kOldestProfileSchemaVersion, kProfileSchemaVersion], naming both). Files without the
// attributes read as CPU training-step profiles; files without the overheads with
// has_step_costs = false.
StatusOr<Profile> ReadProfile(const std::string& path);

}  // namespace fb::sim
