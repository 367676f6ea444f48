#pragma once
// SimProgram: a placed, partitioned graph compiled for replay (whitepaper 3.2.2). One
// SimPartition per device of the engine's partitioning (engine/partition), with per-node compute
// time, local successors and pending counts (the executor's bookkeeping, 3.1), and one
// SimTransfer per _Send/_Recv pair. Compact (plain arrays), so that hundreds of replicas can
// share one program.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/placement/device_desc.h"
#include "sim/byte_cost_curve.h"

namespace fb::sim {

// Cost of a node of the placed graph: compute seconds on a device, and output bytes per port.
// Built from the shared cost model (engine/placement/cost_model.h) by sim/sim_costs.h; tests
// give hand values.
struct SimCosts {
  std::function<double(const Node& n, const DeviceDesc& device)> compute_s;
  std::function<int64_t(const Node& n, int port)> output_bytes;
  // Optional, from a real run (sim/measured_latencies.h); null or negative: not measured.
  // Delivery seconds of the transfer whose _Send is named `send_node` (replaces the platform's
  // latency + bytes / bandwidth when longer; being a measurement of the real bytes, it is not
  // halved by --compression).
  std::function<double(const std::string& send_node)> transfer_s;
  // Seconds from a step's start until the device starts it, and from its end on the device until
  // the step ends (the control plane: run request and done reply), by device name.
  std::function<double(const std::string& device)> dispatch_s, completion_s;
  // Seconds of the receiving device's time that one tensor transfer between two devices of one
  // process costs the executor: its _Send and _Recv nodes, the in-process rendezvous and the
  // wake-up of the receiver's thread, charged as the compute time of the transfer's _Recv (so it
  // occupies the receiving device, and shared cores stretch it). 0: none. Transfers between
  // processes (other job, replica or task in the device names) pay their links and message
  // costs instead. From a profile: ProfileExecutor::transfer_ns (sim/executor_cost_probe.h).
  double in_process_transfer_s = 0;
  // And per byte of the transferred tensor beyond in_process_transfer_free_bytes (the receiver
  // reads a large tensor from memory or the other core's cache).
  double in_process_transfer_s_per_byte = 0;
  int64_t in_process_transfer_free_bytes = 0;
  // With --compression on, seconds per byte of a compressed float32 tensor that its conversion
  // to 16 bits costs the sender's device (charged to the _Send) and back the receiver's (the
  // _Recv); 0: 1.5 x bytes / the device's memory bandwidth on each side (reading 4 bytes and
  // writing 2 per element). From a profile: ProfileExecutor::compress_ns_per_byte and
  // decompress_ns_per_byte.
  double compress_s_per_byte = 0, decompress_s_per_byte = 0;
  // Where not empty, seconds against the float32 tensor's bytes that replace the linear costs
  // above (sim/byte_cost_curve.h; from a schema-5 profile's transfer points, measured on 4 busy
  // devices at 1 KiB to 4 MiB): the in-process transfer, charged to its _Recv at the bytes it
  // carries (half with --compression), and each conversion of --compression.
  ByteCostCurve in_process_transfer_curve_s, compress_curve_s, decompress_curve_s;
};

// kCollective: the fused allreduce of a data-parallel step (sim/allreduce_program.h).
enum class SimNodeKind : uint8_t { kCompute, kSend, kRecv, kCollective };

struct SimNode {
  std::string name;
  std::string op;
  SimNodeKind kind = SimNodeKind::kCompute;
  double compute_s = 0;      // on its partition's device (seconds)
  int64_t output_bytes = 0;  // all outputs
  int32_t num_preds = 0;     // local data and control inputs (pending count at step start)
  std::vector<int32_t> succs;  // local consumers (one entry per edge)
  int32_t transfer = -1;       // kSend/kRecv: index into SimProgram::transfers
  double priority = 0;         // ready-queue priority (higher runs first); see schedule.h
  double alap_start_s = 0;     // latest start in the static one-step schedule (alap-recv)
  // Memory (sim/memory_plan.h): bytes allocated when the node starts (its non-ref outputs; a
  // _Recv's tensor), the local producers whose outputs it reads (one entry per data edge) and
  // how many data edges read its outputs (they are freed when the last one finishes).
  int64_t alloc_bytes = 0;
  std::vector<int32_t> data_inputs;
  int32_t data_consumers = 0;
  // kCollective: bytes reduced and element size (sim/allreduce_program.h).
  int64_t collective_bytes = 0;
  int32_t element_bytes = 4;
  // Loops (sim/loop_replay.h): times the node runs per step (its compute is multiplied).
  int64_t executions = 1;
};

struct SimTransfer {
  int32_t src_partition = 0, src_node = 0;  // the _Send
  int32_t dst_partition = 0, dst_node = 0;  // the _Recv
  int64_t bytes = 0;
  bool is_float32 = false;   // eligible for lossy 16-bit compression (whitepaper 5.5)
  double estimated_s = 0;    // latency + bytes / bandwidth over the platform route
  double measured_s = -1;    // SimCosts::transfer_s of the _Send (negative: not measured)
  // With --compression on (a float32 tensor): what the _Recv's in-process transfer cost changes
  // by, the receiver copying half the bytes (SimCosts::in_process_transfer_curve_s; <= 0).
  double compressed_recv_delta_s = 0;
};

struct SimPartition {
  std::string device;  // full device name (as placed)
  int device_index = 0;  // index into the DeviceSet the graph was placed on
  double dispatch_s = 0, completion_s = 0;  // SimCosts::dispatch_s / completion_s of the device
  int64_t resident_bytes = 0;  // Variables placed here: held for the whole run
  std::vector<SimNode> nodes;
};

struct SimProgram {
  std::vector<SimPartition> partitions;
  std::vector<SimTransfer> transfers;
  double compress_s_per_byte = 0, decompress_s_per_byte = 0;  // SimCosts' (0: by bandwidth)
  ByteCostCurve compress_curve_s, decompress_curve_s;  // SimCosts' (empty: the rates above)
  int64_t num_nodes() const;
};

// Compiles the partitions of `g` (Partition() output: device name -> GraphDef) placed on
// `devices`. Nodes of `g` get their cost from `costs`; nodes that partitioning adds (_Send,
// _Recv, control-transfer Consts) cost nothing, but for a _Recv from a device of the same process,
// which costs costs.in_process_transfer_s; a transfer carries output_bytes of the tensor it
// names. InvalidArgument naming the node for an input that names no node of its partition, a
// _Recv without a matching _Send or a device missing from `devices`.
StatusOr<SimProgram> CompileProgram(const Graph& g, const std::map<std::string, GraphDef>& parts,
                                    const DeviceSet& devices, const SimCosts& costs);

}  // namespace fb::sim
