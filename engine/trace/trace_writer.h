#pragma once
// TraceWriter: writes one run's trace in the schema of engine/trace/trace_schema.h (whitepaper
// section 9, EEG). Used by real runs (Session::Run with RunOptions.trace, the MPI runtime) and by
// the SimGrid simulator alike:
//
//   TraceMetadata meta;  meta.mode = TraceMode::kReal;  meta.config_json = config.dump();
//   ASSIGN_OR_RETURN(auto w, TraceWriter::Create("run.h5", meta));
//   RETURN_IF_ERROR(w->AddGraph(session->graph()));
//   for (int step = 0; ...) {
//     RunMetadata md;  session->Run(opts_with_trace, ..., &md);
//     RETURN_IF_ERROR(w->AddRunMetadata(step, md, loss));
//     RETURN_IF_ERROR(w->AddMetric(step, "loss", loss));
//   }
//   RETURN_IF_ERROR(w->Close());
//
// The simulator records its activities with AddEvent and the step totals with AddStep(step, {},
// totals). Events are buffered and appended to the extendable /events dataset in chunks, so long
// runs use bounded memory. The file is written as "<path>.tmp" and renamed to `path` by Close,
// so a crashed run never leaves a half-written file under the final name.
//
// Errors: every method returns a Status naming the file (HDF5 failures carry HDF5's own
// innermost message). After Close, or after a failed Close, further calls fail with
// FailedPrecondition. Thread-safe: all methods may be called from several threads.
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/runtime/step_stats.h"
#include "engine/trace/trace_schema.h"

namespace fb {

class Graph;
struct Edge;
struct RunMetadata;

// One event with names spelled out; the writer interns them into /strings and /devices.
struct TraceEvent {
  EventKind kind = EventKind::kCompute;
  int rank = 0;
  std::string device;  // full device name
  int64_t stream = 0;  // OS thread id (CPU) or stream id (GPU, simulator)
  int64_t step = 0;
  std::string node;  // node name
  std::string op;    // op type
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t bytes = 0;
  std::string peer_device;  // "" if none
};

// Per-step totals. start_ns/end_ns == 0 means "derive from the step's events" (min start, max
// end); loss NaN means unknown; peak_bytes maps device names to the allocator's peak.
struct StepTotals {
  int rank = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double loss = std::numeric_limits<double>::quiet_NaN();
  std::map<std::string, int64_t> peak_bytes;
};

class TraceWriter {
 public:
  // Creates "<path>.tmp" (truncating an old one) and writes the root attributes. Internal
  // naming the file when it cannot be created (missing directory, permissions).
  static StatusOr<std::unique_ptr<TraceWriter>> Create(const std::string& path,
                                                       const TraceMetadata& metadata);
  // Closes if Close was not called (errors are then logged to stderr, not returned).
  ~TraceWriter();

  // Writes /graph/ops and /graph/edges (once per file; AlreadyExists on a second call). Op
  // devices are the assigned device, else the requested one. `edge_bytes`, when given, returns
  // the bytes an edge carries (-1 if unknown); by default data edges are -1, control edges 0.
  using EdgeBytesFn = std::function<int64_t(const Edge&)>;
  Status AddGraph(const Graph& graph, const EdgeBytesFn& edge_bytes = nullptr);

  // Records one executed node per NodeExecStats (kind from EventKindForOp; bytes are
  // transfer_bytes when set, else output_bytes; stream is the thread id; rank is the stats'
  // rank when non-zero, else totals.rank) under `step`, and one
  // /steps row (plus one /memory row per device in totals.peak_bytes).
  Status AddStep(int64_t step, const std::vector<NodeExecStats>& stats,
                 const StepTotals& totals = {});
  // AddStep from a Session's RunMetadata (step_stats and peak_bytes).
  Status AddRunMetadata(int64_t step, const RunMetadata& metadata,
                        double loss = std::numeric_limits<double>::quiet_NaN(), int rank = 0);
  // Records one event (simulator activities, MPI transfers).
  Status AddEvent(const TraceEvent& event);
  // Appends (step, name, value) to /metrics: loss and accuracy curves.
  Status AddMetric(int64_t step, const std::string& name, double value);
  // Registers a device with an explicit type ("CPU", "GPU", "host"); otherwise devices are
  // added on first use with the type parsed from their name. Returns the device id.
  StatusOr<int32_t> AddDevice(const std::string& name, const std::string& type);

  // Flushes everything, writes /strings and /devices, closes and renames to the final path.
  Status Close();

  const std::string& path() const { return path_; }
  int64_t num_events() const;

 private:
  explicit TraceWriter(std::string path);
  Status Init(const TraceMetadata& metadata);
  int32_t Intern(const std::string& s);
  int32_t DeviceId(const std::string& name);
  Status CheckOpen() const;
  Status AppendEvent(const EventRecord& record);
  Status FlushEvents();
  Status WriteStringTable();
  Status CloseLocked();

  const std::string path_, tmp_path_;
  mutable std::mutex mu_;
  h5::Handle file_;
  h5::Handle event_type_, step_type_, memory_type_, metric_type_;
  std::unique_ptr<h5::AppendTable> events_, steps_, memory_, metrics_;
  std::vector<EventRecord> event_buffer_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, int32_t> string_ids_;
  std::vector<DeviceRecord> devices_;
  std::unordered_map<std::string, int32_t> device_ids_;
  bool graph_written_ = false;
  bool closed_ = false;
};

}  // namespace fb
