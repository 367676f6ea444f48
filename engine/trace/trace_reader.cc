#include "engine/trace/trace_reader.h"

#include <cstdlib>

#include "engine/trace/isolated_call.h"
#include "engine/trace/trace_file_reader.h"
#include "engine/trace/hdf5_checked.h"
#include "engine/trace/trace_serialization.h"

namespace fb {

namespace {
const std::string& Lookup(const std::vector<std::string>& v, int32_t id) {
  static const std::string* empty = new std::string;
  return id >= 0 && static_cast<size_t>(id) < v.size() ? v[id] : *empty;
}

// Every id a record holds must index /strings or /devices (or be -1 where "none" is allowed).
Status ValidateIds(const Trace& t) {
  auto check = [&](int32_t id, size_t size, bool optional, const char* table, size_t row,
                   const char* field) -> Status {
    if ((optional && id == -1) || (id >= 0 && static_cast<size_t>(id) < size)) return Status::OK();
    return InvalidArgument(t.path, ": /", table, " row ", row, ": ", field, " id ", id,
                           " is out of range [0, ", size, ")");
  };
  const size_t ns = t.strings.size(), nd = t.devices.size();
  for (size_t i = 0; i < t.devices.size(); ++i) {
    RETURN_IF_ERROR(check(t.devices[i].name, ns, false, "devices", i, "name"));
    RETURN_IF_ERROR(check(t.devices[i].type, ns, false, "devices", i, "type"));
  }
  for (size_t i = 0; i < t.events.size(); ++i) {
    const EventRecord& e = t.events[i];
    RETURN_IF_ERROR(check(e.device, nd, true, "events", i, "device"));
    RETURN_IF_ERROR(check(e.peer_device, nd, true, "events", i, "peer_device"));
    RETURN_IF_ERROR(check(e.node, ns, true, "events", i, "node"));
    RETURN_IF_ERROR(check(e.op_type, ns, true, "events", i, "op_type"));
  }
  for (size_t i = 0; i < t.ops.size(); ++i) {
    RETURN_IF_ERROR(check(t.ops[i].node, ns, false, "graph/ops", i, "node"));
    RETURN_IF_ERROR(check(t.ops[i].op_type, ns, false, "graph/ops", i, "op_type"));
    RETURN_IF_ERROR(check(t.ops[i].device, nd, true, "graph/ops", i, "device"));
  }
  for (size_t i = 0; i < t.memory.size(); ++i)
    RETURN_IF_ERROR(check(t.memory[i].device, nd, false, "memory", i, "device"));
  for (size_t i = 0; i < t.metrics.size(); ++i)
    RETURN_IF_ERROR(check(t.metrics[i].name, ns, false, "metrics", i, "name"));
  return Status::OK();
}

// Times within +-2^62 ns (146 years): every difference of two fits an int64, so durations and
// offsets from the trace's origin computed by the tools cannot overflow.
Status ValidateTimes(const Trace& t) {
  constexpr int64_t kMaxAbsNs = int64_t{1} << 62;
  auto check = [&](int64_t start_ns, int64_t end_ns, const char* table, size_t row) -> Status {
    if (start_ns >= -kMaxAbsNs && start_ns <= kMaxAbsNs && end_ns >= -kMaxAbsNs &&
        end_ns <= kMaxAbsNs)
      return Status::OK();
    return InvalidArgument(t.path, ": /", table, " row ", row, ": start_ns ", start_ns,
                           " or end_ns ", end_ns, " is outside +-2^62 ns");
  };
  for (size_t i = 0; i < t.events.size(); ++i)
    RETURN_IF_ERROR(check(t.events[i].start_ns, t.events[i].end_ns, "events", i));
  for (size_t i = 0; i < t.steps.size(); ++i)
    RETURN_IF_ERROR(check(t.steps[i].start_ns, t.steps[i].end_ns, "steps", i));
  return Status::OK();
}
}  // namespace

const std::string& Trace::str(int32_t id) const { return Lookup(strings, id); }

const std::string& Trace::device_name(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= devices.size()) return Lookup(strings, -1);
  return str(devices[id].name);
}

namespace {

double Timeout(const TraceReadOptions& o, uint64_t file_bytes) {
  if (o.timeout_s > 0) return o.timeout_s;
  if (const char* env = std::getenv("FLOWBENCH_TRACE_READ_TIMEOUT_S")) {
    const double s = std::atof(env);
    if (s > 0) return s;
  }
  return 30.0 + static_cast<double>(file_bytes) / 10e6;
}

bool InProcess(const TraceReadOptions& o) {
  const char* env = std::getenv("FLOWBENCH_TRACE_READ_IN_PROCESS");
  return !o.isolate || (env && std::string(env) == "1");
}

}  // namespace

StatusOr<Trace> TraceReader::Open(const std::string& path, const TraceReadOptions& options) {
  ASSIGN_OR_RETURN(h5::FileBounds bounds, h5::GetFileBounds(path));
  Trace t;
  if (InProcess(options)) {
    h5::Hdf5Guard guard;
    ASSIGN_OR_RETURN(t, ReadTraceFile(path));
  } else {
    IsolatedCallOptions iso;
    iso.path = path;
    iso.what = "reading the trace";
    iso.timeout_s = Timeout(options, bounds.file_bytes);
    // The guard keeps other threads out of libhdf5 while the process forks.
    h5::Hdf5Guard guard;
    ASSIGN_OR_RETURN(std::string bytes, RunIsolated(
                                            [&]() -> StatusOr<std::string> {
                                              ASSIGN_OR_RETURN(Trace child, ReadTraceFile(path));
                                              return SerializeTrace(child);
                                            },
                                            iso));
    t.path = path;
    RETURN_IF_ERROR(DeserializeTrace(bytes, &t));
  }
  RETURN_IF_ERROR(ValidateIds(t));
  RETURN_IF_ERROR(ValidateTimes(t));
  return t;
}

}  // namespace fb
