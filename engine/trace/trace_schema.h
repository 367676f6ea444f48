#pragma once
// The flowbench trace schema (whitepaper section 9, EEG: "very fine-grained information about
// the exact ordering and performance characteristics of the execution of TensorFlow graphs ...
// in both our single machine and distributed implementations"). One HDF5 file per run, written
// by TraceWriter and read by TraceReader, the same for real runs (Session, MPI runtime) and
// SimGrid simulations. Laid out like Nsight Systems' and PaRSEC's HDF5 exports; the full
// description, with h5py/pandas recipes, is docs/trace-format.md.
//
//   /                  attributes: schema_version (int), mode ("real"|"sim"), simulated (0|1),
//                      clock ("ns"), seed; git_revision, command_line, host, config (JSON text)
//                      as string ids
//   /strings/data      uint8[]: the strings' UTF-8 bytes, concatenated
//   /strings/offsets   int64[n + 1]: string i is data[offsets[i], offsets[i + 1]); its id is i
//   /devices           DeviceRecord[]  (id, name, type)
//   /graph/ops         OpRecord[]      (id, node, op_type, device)
//   /graph/edges       EdgeRecord[]    (src, src_output, dst, dst_input, bytes)
//   /events            EventRecord[]   one row per executed node, transfer or copy
//   /steps             StepRecord[]    (step, rank, start_ns, end_ns, loss)
//   /memory            MemoryRecord[]  (step, device, peak_bytes)
//   /metrics           MetricRecord[]  (step, name, value): loss and accuracy curves
//
// Every table is a chunked, extendable, gzip-compressed 1-D compound dataset whose fields are
// integers or doubles only (names are ids into /strings), so pandas.DataFrame(f["events"][:])
// works directly. Nothing in the file is variable-length (version 2): libhdf5 keeps
// variable-length data in a global heap that it follows without checks, so a corrupt file could
// crash readers; fixed-size data can be checked against the file before it is read. Times are ns
// (CLOCK_REALTIME ns since the Unix epoch for real runs, simulated ns since the simulation start
// for sim runs); sizes are bytes.
#include <hdf5.h>

#include <cstdint>
#include <string>

#include "engine/framework/status.h"
#include "engine/trace/hdf5_util.h"

namespace fb {

// Bumped whenever a dataset, field or attribute changes meaning. Version 2 (this writer) replaced
// version 1's variable-length strings (/strings and the string attributes) with the string blob
// and string ids; TraceReader reads both.
inline constexpr int64_t kTraceSchemaVersion = 2;

enum class EventKind : int32_t {
  kCompute = 0,  // a kernel (any op that is not a transfer)
  kSend = 1,     // a _Send/Send: `bytes` leave `device` for `peer_device`
  kRecv = 2,     // a _Recv/Recv: `bytes` arrive on `device` from `peer_device`
  kMemcpy = 3,   // a copy between host and device memory (Memcpy*, _Copy* ops)
};
inline constexpr int kNumEventKinds = 4;
// "compute", "send", "recv", "memcpy"; "unknown" for out-of-range values.
const char* EventKindName(int32_t kind);
// The kind of an executed op, by name: _Send/Send/_HostSend -> send, _Recv/Recv/_HostRecv ->
// recv, ops whose name starts with "Memcpy" or "_Copy" -> memcpy, everything else compute.
EventKind EventKindForOp(const std::string& op);

enum class TraceMode { kReal, kSim };
const char* TraceModeName(TraceMode mode);  // "real", "sim"
StatusOr<TraceMode> TraceModeFromName(const std::string& name);

// Root attributes describing the run.
struct TraceMetadata {
  TraceMode mode = TraceMode::kReal;
  int64_t seed = 0;
  std::string git_revision;  // "" if unknown
  std::string command_line;  // the argv of the run, space-separated
  std::string host;          // machine (or simulated platform) name
  std::string config_json = "{}";  // the run's configuration as JSON text
};

// Metadata with host (gethostname) and command line (argv joined by spaces) filled in, and the
// git revision from the FLOWBENCH_GIT_REVISION environment variable, else the FB_GIT_REVISION
// compile definition, else "".
TraceMetadata DefaultTraceMetadata(TraceMode mode, int argc, const char* const* argv);

// The records, exactly as stored (the HDF5 compound types below mirror them field by field).
// Ids: -1 means "none"; string ids index /strings, device ids index /devices.
struct EventRecord {
  int32_t kind = 0;          // EventKind
  int32_t rank = 0;          // MPI rank (0 for single-process runs)
  int32_t device = -1;       // device id
  int64_t stream = 0;        // CPU: OS thread id that ran the kernel; GPU: stream id
  int64_t step = 0;          // the step (training iteration) the event belongs to
  int32_t node = -1;         // string id of the node name
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t bytes = 0;         // output bytes (compute), bytes moved (send, recv, memcpy)
  int32_t peer_device = -1;  // device id of the other end (send, recv, memcpy)
  int32_t op_type = -1;      // string id of the op type ("MatMul")
};

struct DeviceRecord {
  int32_t id = 0;
  int32_t name = -1;  // string id: "/job:localhost/replica:0/task:0/device:CPU:0"
  int32_t type = -1;  // string id: "CPU", "GPU"
};

struct OpRecord {
  int32_t id = 0;        // the graph's node id
  int32_t node = -1;     // string id of the node name
  int32_t op_type = -1;  // string id of the op type
  int32_t device = -1;   // device id of the assigned (or requested) device; -1 if none
};

struct EdgeRecord {
  int32_t src = 0;         // OpRecord id of the producer
  int32_t src_output = 0;  // output port; -1 for a control edge
  int32_t dst = 0;         // OpRecord id of the consumer
  int32_t dst_input = 0;   // input port; -1 for a control edge
  int64_t bytes = -1;      // tensor bytes carried; -1 if unknown, 0 for control edges
};

struct StepRecord {
  int64_t step = 0;
  int32_t rank = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double loss = 0;  // NaN when unknown
};

struct MemoryRecord {
  int64_t step = 0;
  int32_t device = -1;
  int64_t peak_bytes = 0;  // allocator peak during the step
};

struct MetricRecord {
  int64_t step = 0;
  int32_t name = -1;  // string id: "loss", "accuracy", ...
  double value = 0;
};

// Dataset paths (relative to the root) and root attribute names.
namespace trace_paths {
inline constexpr const char* kStrings = "strings";  // version 1: variable-length strings
inline constexpr const char* kStringData = "strings/data";        // version 2
inline constexpr const char* kStringOffsets = "strings/offsets";  // version 2
inline constexpr const char* kDevices = "devices";
inline constexpr const char* kGraphOps = "graph/ops";
inline constexpr const char* kGraphEdges = "graph/edges";
inline constexpr const char* kEvents = "events";
inline constexpr const char* kSteps = "steps";
inline constexpr const char* kMemory = "memory";
inline constexpr const char* kMetrics = "metrics";
}  // namespace trace_paths

// The HDF5 compound types of the records (native layout; owned handles). Field names are the
// struct members' names.
h5::Handle EventH5Type();
h5::Handle DeviceH5Type();
h5::Handle OpH5Type();
h5::Handle EdgeH5Type();
h5::Handle StepH5Type();
h5::Handle MemoryH5Type();
h5::Handle MetricH5Type();

}  // namespace fb
