#include "engine/trace/trace_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <iostream>

#include "engine/framework/device_name.h"
#include "engine/graph/graph.h"
#include "engine/runtime/session.h"
#include "engine/trace/hdf5_checked.h"

namespace fb {

namespace {
// Events buffered in memory before an append to /events; also the /events chunk size.
constexpr size_t kEventChunkRecords = 16384;
constexpr size_t kSmallChunkRecords = 1024;
constexpr size_t kStringChunkBytes = 65536;

std::string DeviceTypeFromName(const std::string& name) {
  auto parsed = ParseDeviceName(name);
  return parsed.ok() && parsed->has_type ? parsed->type : "unknown";
}
}  // namespace

TraceWriter::TraceWriter(std::string path) : path_(std::move(path)), tmp_path_(path_ + ".tmp") {}

StatusOr<std::unique_ptr<TraceWriter>> TraceWriter::Create(const std::string& path,
                                                           const TraceMetadata& metadata) {
  std::unique_ptr<TraceWriter> w(new TraceWriter(path));
  h5::Hdf5Guard guard;
  if (Status s = w->Init(metadata); !s.ok()) {
    w->closed_ = true;  // nothing to finalise in the destructor
    w->file_.Reset();
    std::remove(w->tmp_path_.c_str());
    return s;
  }
  return w;
}

Status TraceWriter::Init(const TraceMetadata& m) {
  file_ = h5::Handle(H5Fcreate(tmp_path_.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                     H5Fclose);
  if (!file_.valid()) return h5::Error(Code::kInternal, tmp_path_, "cannot create trace file");
  hid_t root = file_.get();
  // Fixed-size attributes only (schema version 2): free text goes to /strings by id.
  RETURN_IF_ERROR(h5::WriteAttr(root, "schema_version", kTraceSchemaVersion, tmp_path_));
  RETURN_IF_ERROR(h5::WriteFixedStringAttr(root, "mode", TraceModeName(m.mode), tmp_path_));
  RETURN_IF_ERROR(
      h5::WriteAttr(root, "simulated", int64_t{m.mode == TraceMode::kSim}, tmp_path_));
  RETURN_IF_ERROR(h5::WriteFixedStringAttr(root, "clock", "ns", tmp_path_));
  RETURN_IF_ERROR(h5::WriteAttr(root, "seed", m.seed, tmp_path_));
  auto text = [&](const char* name, const std::string& value) {
    return h5::WriteAttr(root, name, int64_t{Intern(value)}, tmp_path_);
  };
  RETURN_IF_ERROR(text("git_revision", m.git_revision));
  RETURN_IF_ERROR(text("command_line", m.command_line));
  RETURN_IF_ERROR(text("host", m.host));
  RETURN_IF_ERROR(text("config", m.config_json));
  event_type_ = EventH5Type();
  step_type_ = StepH5Type();
  memory_type_ = MemoryH5Type();
  metric_type_ = MetricH5Type();
  auto make = [&](const char* name, const h5::Handle& type, size_t chunk,
                  std::unique_ptr<h5::AppendTable>* out) -> Status {
    ASSIGN_OR_RETURN(h5::AppendTable t,
                     h5::AppendTable::Create(root, name, type.get(), chunk, tmp_path_));
    *out = std::make_unique<h5::AppendTable>(std::move(t));
    return Status::OK();
  };
  RETURN_IF_ERROR(make(trace_paths::kEvents, event_type_, kEventChunkRecords, &events_));
  RETURN_IF_ERROR(make(trace_paths::kSteps, step_type_, kSmallChunkRecords, &steps_));
  RETURN_IF_ERROR(make(trace_paths::kMemory, memory_type_, kSmallChunkRecords, &memory_));
  RETURN_IF_ERROR(make(trace_paths::kMetrics, metric_type_, kSmallChunkRecords, &metrics_));
  event_buffer_.reserve(kEventChunkRecords);
  return Status::OK();
}

TraceWriter::~TraceWriter() {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return;
  h5::Hdf5Guard guard;
  Status s = CloseLocked();
  if (!s.ok()) std::cerr << "TraceWriter: " << s << std::endl;
}

int64_t TraceWriter::num_events() const {
  std::lock_guard<std::mutex> l(mu_);
  return (events_ ? events_->size() : 0) + static_cast<int64_t>(event_buffer_.size());
}

int32_t TraceWriter::Intern(const std::string& s) {
  auto [it, inserted] = string_ids_.emplace(s, static_cast<int32_t>(strings_.size()));
  if (inserted) strings_.push_back(s);
  return it->second;
}

int32_t TraceWriter::DeviceId(const std::string& name) {
  if (name.empty()) return -1;
  auto it = device_ids_.find(name);
  if (it != device_ids_.end()) return it->second;
  int32_t id = static_cast<int32_t>(devices_.size());
  devices_.push_back({id, Intern(name), Intern(DeviceTypeFromName(name))});
  device_ids_[name] = id;
  return id;
}

StatusOr<int32_t> TraceWriter::AddDevice(const std::string& name, const std::string& type) {
  std::lock_guard<std::mutex> l(mu_);
  RETURN_IF_ERROR(CheckOpen());
  if (name.empty()) return InvalidArgument(path_, ": device name must not be empty");
  int32_t id = DeviceId(name);
  devices_[id].type = Intern(type);
  return id;
}

Status TraceWriter::CheckOpen() const {
  if (closed_) return FailedPrecondition(path_, ": trace writer is closed");
  return Status::OK();
}

Status TraceWriter::AppendEvent(const EventRecord& record) {
  event_buffer_.push_back(record);
  if (event_buffer_.size() >= kEventChunkRecords) return FlushEvents();
  return Status::OK();
}

Status TraceWriter::FlushEvents() {
  h5::Hdf5Guard guard;
  Status s = events_->Append(event_buffer_);
  event_buffer_.clear();
  return s;
}

Status TraceWriter::AddEvent(const TraceEvent& e) {
  std::lock_guard<std::mutex> l(mu_);
  RETURN_IF_ERROR(CheckOpen());
  EventRecord r;
  r.kind = static_cast<int32_t>(e.kind);
  r.rank = e.rank;
  r.device = DeviceId(e.device);
  r.stream = e.stream;
  r.step = e.step;
  r.node = Intern(e.node);
  r.start_ns = e.start_ns;
  r.end_ns = e.end_ns;
  r.bytes = e.bytes;
  r.peer_device = DeviceId(e.peer_device);
  r.op_type = Intern(e.op);
  return AppendEvent(r);
}

Status TraceWriter::AddStep(int64_t step, const std::vector<NodeExecStats>& stats,
                            const StepTotals& totals) {
  int64_t first_ns = stats.empty() ? 0 : std::numeric_limits<int64_t>::max(), last_ns = 0;
  for (const NodeExecStats& s : stats) {
    const int rank = s.rank != 0 ? s.rank : totals.rank;
    const int64_t bytes = s.transfer_bytes ? s.transfer_bytes : s.output_bytes;
    TraceEvent e{EventKindForOp(s.op), rank,     s.device, s.thread_id, step, s.node_name,
                 s.op,                 s.start_ns, s.end_ns, bytes,       s.peer_device};
    RETURN_IF_ERROR(AddEvent(e));
    first_ns = std::min(first_ns, s.start_ns);
    last_ns = std::max(last_ns, s.end_ns);
  }
  std::lock_guard<std::mutex> l(mu_);
  RETURN_IF_ERROR(CheckOpen());
  StepRecord r{step, totals.rank, totals.start_ns ? totals.start_ns : first_ns,
               totals.end_ns ? totals.end_ns : last_ns, totals.loss};
  std::vector<MemoryRecord> memory;
  for (const auto& [device, peak] : totals.peak_bytes)
    memory.push_back({step, DeviceId(device), peak});
  h5::Hdf5Guard guard;
  RETURN_IF_ERROR(steps_->Append(&r, 1));
  return memory_->Append(memory);
}

Status TraceWriter::AddRunMetadata(int64_t step, const RunMetadata& metadata, double loss,
                                   int rank) {
  StepTotals totals;
  totals.rank = rank;
  totals.loss = loss;
  totals.peak_bytes = metadata.peak_bytes;
  return AddStep(step, metadata.step_stats, totals);
}

Status TraceWriter::AddMetric(int64_t step, const std::string& name, double value) {
  std::lock_guard<std::mutex> l(mu_);
  RETURN_IF_ERROR(CheckOpen());
  MetricRecord r{step, Intern(name), value};
  h5::Hdf5Guard guard;
  return metrics_->Append(&r, 1);
}

Status TraceWriter::AddGraph(const Graph& graph, const EdgeBytesFn& edge_bytes) {
  std::lock_guard<std::mutex> l(mu_);
  RETURN_IF_ERROR(CheckOpen());
  if (graph_written_) return AlreadyExists(path_, ": the graph was already added to this trace");
  std::vector<OpRecord> ops;
  std::vector<EdgeRecord> edges;
  for (const Node* n : graph.nodes()) {
    const std::string& device =
        n->assigned_device().empty() ? n->requested_device() : n->assigned_device();
    ops.push_back({n->id(), Intern(n->name()), Intern(n->op()), DeviceId(device)});
    for (const Edge* e : n->out_edges()) {
      int64_t bytes = e->IsControlEdge() ? 0 : (edge_bytes ? edge_bytes(*e) : -1);
      edges.push_back({e->src->id(), e->src_output, e->dst->id(), e->dst_input, bytes});
    }
  }
  h5::Hdf5Guard guard;
  RETURN_IF_ERROR(h5::WriteTable(file_.get(), trace_paths::kGraphOps, OpH5Type().get(), ops,
                                 tmp_path_));
  RETURN_IF_ERROR(h5::WriteTable(file_.get(), trace_paths::kGraphEdges, EdgeH5Type().get(), edges,
                                 tmp_path_));
  graph_written_ = true;
  return Status::OK();
}

// /strings/data (the UTF-8 bytes of every string, concatenated) and /strings/offsets (n + 1
// offsets into it): fixed-size data, unlike variable-length strings (trace_schema.h).
Status TraceWriter::WriteStringTable() {
  std::vector<uint8_t> data;
  std::vector<int64_t> offsets = {0};
  offsets.reserve(strings_.size() + 1);
  for (const std::string& s : strings_) {
    data.insert(data.end(), s.begin(), s.end());
    offsets.push_back(static_cast<int64_t>(data.size()));
  }
  hid_t root = file_.get();
  ASSIGN_OR_RETURN(h5::AppendTable blob,
                   h5::AppendTable::Create(root, trace_paths::kStringData, H5T_NATIVE_UINT8,
                                           kStringChunkBytes, tmp_path_));
  RETURN_IF_ERROR(blob.Append(data));
  return h5::WriteTable(root, trace_paths::kStringOffsets, H5T_NATIVE_INT64, offsets, tmp_path_);
}

Status TraceWriter::Close() {
  std::lock_guard<std::mutex> l(mu_);
  RETURN_IF_ERROR(CheckOpen());
  h5::Hdf5Guard guard;
  return CloseLocked();
}

Status TraceWriter::CloseLocked() {
  closed_ = true;
  RETURN_IF_ERROR(FlushEvents());
  hid_t root = file_.get();
  if (!graph_written_) {  // empty graph tables keep the layout uniform for readers
    RETURN_IF_ERROR(h5::WriteTable(root, trace_paths::kGraphOps, OpH5Type().get(),
                                   std::vector<OpRecord>{}, tmp_path_));
    RETURN_IF_ERROR(h5::WriteTable(root, trace_paths::kGraphEdges, EdgeH5Type().get(),
                                   std::vector<EdgeRecord>{}, tmp_path_));
  }
  RETURN_IF_ERROR(h5::WriteTable(root, trace_paths::kDevices, DeviceH5Type().get(), devices_,
                                 tmp_path_));
  RETURN_IF_ERROR(WriteStringTable());
  events_.reset();
  steps_.reset();
  memory_.reset();
  metrics_.reset();
  if (H5Fflush(root, H5F_SCOPE_GLOBAL) < 0 || !file_.Reset())
    return h5::Error(Code::kInternal, tmp_path_, "cannot flush and close the trace file");
  if (std::rename(tmp_path_.c_str(), path_.c_str()) != 0)
    return Internal(tmp_path_, ": cannot rename to ", path_, ": ", std::strerror(errno));
  return Status::OK();
}

}  // namespace fb
