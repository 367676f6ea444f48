#include "engine/trace/trace_reader.h"

namespace fb {

namespace {
const std::string& Lookup(const std::vector<std::string>& v, int32_t id) {
  static const std::string* empty = new std::string;
  return id >= 0 && static_cast<size_t>(id) < v.size() ? v[id] : *empty;
}

Status ReadMetadata(hid_t root, Trace* t) {
  const std::string& p = t->path;
  ASSIGN_OR_RETURN(t->schema_version, h5::ReadIntAttr(root, "schema_version", p));
  if (t->schema_version != kTraceSchemaVersion)
    return FailedPrecondition(p, ": trace schema_version is ", t->schema_version,
                              ", this flowbench reads version ", kTraceSchemaVersion);
  ASSIGN_OR_RETURN(std::string mode, h5::ReadStringAttr(root, "mode", p));
  auto parsed = TraceModeFromName(mode);
  if (!parsed.ok()) return parsed.status().WithPrefix(p + ": ");
  TraceMetadata& m = t->metadata;
  m.mode = *parsed;
  ASSIGN_OR_RETURN(t->clock, h5::ReadStringAttr(root, "clock", p));
  ASSIGN_OR_RETURN(m.seed, h5::ReadIntAttr(root, "seed", p));
  ASSIGN_OR_RETURN(m.git_revision, h5::ReadStringAttr(root, "git_revision", p));
  ASSIGN_OR_RETURN(m.command_line, h5::ReadStringAttr(root, "command_line", p));
  ASSIGN_OR_RETURN(m.host, h5::ReadStringAttr(root, "host", p));
  ASSIGN_OR_RETURN(m.config_json, h5::ReadStringAttr(root, "config", p));
  return Status::OK();
}

Status ReadTables(hid_t root, Trace* t) {
  const std::string& p = t->path;
  ASSIGN_OR_RETURN(t->strings, h5::ReadStrings(root, trace_paths::kStrings, p));
  ASSIGN_OR_RETURN(t->devices,
                   h5::ReadTable<DeviceRecord>(root, trace_paths::kDevices, DeviceH5Type().get(), p));
  ASSIGN_OR_RETURN(t->ops, h5::ReadTable<OpRecord>(root, trace_paths::kGraphOps, OpH5Type().get(), p));
  ASSIGN_OR_RETURN(t->edges,
                   h5::ReadTable<EdgeRecord>(root, trace_paths::kGraphEdges, EdgeH5Type().get(), p));
  ASSIGN_OR_RETURN(t->events,
                   h5::ReadTable<EventRecord>(root, trace_paths::kEvents, EventH5Type().get(), p));
  ASSIGN_OR_RETURN(t->steps,
                   h5::ReadTable<StepRecord>(root, trace_paths::kSteps, StepH5Type().get(), p));
  ASSIGN_OR_RETURN(t->memory,
                   h5::ReadTable<MemoryRecord>(root, trace_paths::kMemory, MemoryH5Type().get(), p));
  ASSIGN_OR_RETURN(t->metrics,
                   h5::ReadTable<MetricRecord>(root, trace_paths::kMetrics, MetricH5Type().get(), p));
  return Status::OK();
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
}  // namespace

const std::string& Trace::str(int32_t id) const { return Lookup(strings, id); }

const std::string& Trace::device_name(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= devices.size()) return Lookup(strings, -1);
  return str(devices[id].name);
}

StatusOr<Trace> TraceReader::Open(const std::string& path) {
  h5::Hdf5Guard guard;
  Trace t;
  t.path = path;
  ASSIGN_OR_RETURN(h5::Handle file, h5::OpenFileForRead(path, "trace"));
  RETURN_IF_ERROR(ReadMetadata(file.get(), &t));
  RETURN_IF_ERROR(ReadTables(file.get(), &t));
  RETURN_IF_ERROR(ValidateIds(t));
  return t;
}

}  // namespace fb
