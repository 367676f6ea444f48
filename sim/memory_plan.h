#pragma once
// Per-device memory in the replay (issue 17): what each node allocates and frees, as the
// engine's executor does (whitepaper 3.1 and 5.2): a node's non-ref outputs are allocated when it
// starts and freed when the last node reading them (through a data edge) finishes; outputs nobody
// reads are freed when the node finishes; a _Recv allocates its tensor; Variables are resident
// for the whole run (their bytes count from the start). The replay (sim/device_actor.cc) adds
// this up per platform device and reports the peak; a device whose platform host declares
// `memory_bytes` (sim/platform.h) and needs more fails the run with
//   ResourceExhausted: OOM on device D (host H): needs N bytes, capacity M (node 'X', step S)
// as a real device's allocator would (engine/framework/bfc_allocator.h), so that sweeps can
// discard placements that do not fit. Not modelled: allocator fragmentation and alignment,
// kernels' temporary buffers, the sender's copy of a tensor in flight, forwarding of inputs.
#include <map>
#include <string>

#include "engine/framework/status.h"
#include "engine/graph/graph.h"
#include "sim/platform.h"
#include "sim/program.h"

namespace fb::sim {

// Fills alloc_bytes, data_inputs and data_consumers of every node of `program` and the
// partitions' resident_bytes. `parts` and `program` are those of CompileProgram (partitions in
// map order, nodes in GraphDef order); byte counts come from costs.output_bytes.
// InvalidArgument naming the node for an input that names no node of its partition.
Status PlanMemory(const Graph& placed, const std::map<std::string, GraphDef>& parts,
                  const SimCosts& costs, SimProgram* program);

// --check-memory: every device of `devices` used by the run (indices in `used`) must declare its
// capacity. InvalidArgument naming the platform file, the host and the `memory_bytes` property.
Status RequireMemoryCapacity(const std::vector<SimDevice>& devices, const std::vector<int>& used,
                             const std::string& platform_path);

}  // namespace fb::sim
