#include "engine/trace/trace_file_reader.h"

#include <limits>

#include "engine/trace/global_heap_strings.h"
#include "engine/trace/hdf5_checked.h"
#include "engine/trace/hdf5_file_kind.h"

namespace fb {
namespace {

using h5::FileBounds;

constexpr size_t kMaxShortAttrBytes = 64;  // mode, clock
constexpr uint64_t kMaxStrings = std::numeric_limits<int32_t>::max();

Status SetMode(const std::string& mode, const FileBounds& f, Trace* t) {
  auto parsed = TraceModeFromName(mode);
  if (!parsed.ok()) return parsed.status().WithPrefix(f.path + ": attribute 'mode': ");
  t->metadata.mode = *parsed;
  return Status::OK();
}

// Version 1: string attributes are variable-length (libhdf5 reads them from the global heap).
StatusOr<std::string> ReadVlenStringAttr(hid_t obj, const std::string& name,
                                         const FileBounds& f) {
  ASSIGN_OR_RETURN(h5::Handle attr, h5::OpenCheckedAttr(obj, name, f));
  h5::Handle type(H5Aget_type(attr.get()), H5Tclose);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0)
    return InvalidArgument(f.path, ": attribute '", name,
                           "' must be a variable-length string (schema version 1)");
  h5::Handle mem = h5::VarStringType();
  char* p = nullptr;
  if (H5Aread(attr.get(), mem.get(), &p) < 0)
    return h5::Error(Code::kDataLoss, f.path, "cannot read attribute '" + name + "'");
  std::string s = p ? p : "";
  H5free_memory(p);
  return s;
}

Status ReadMetadataV1(hid_t root, const FileBounds& f, Trace* t) {
  ASSIGN_OR_RETURN(std::string mode, ReadVlenStringAttr(root, "mode", f));
  RETURN_IF_ERROR(SetMode(mode, f, t));
  ASSIGN_OR_RETURN(t->clock, ReadVlenStringAttr(root, "clock", f));
  ASSIGN_OR_RETURN(t->metadata.git_revision, ReadVlenStringAttr(root, "git_revision", f));
  ASSIGN_OR_RETURN(t->metadata.command_line, ReadVlenStringAttr(root, "command_line", f));
  ASSIGN_OR_RETURN(t->metadata.host, ReadVlenStringAttr(root, "host", f));
  ASSIGN_OR_RETURN(t->metadata.config_json, ReadVlenStringAttr(root, "config", f));
  return Status::OK();
}

StatusOr<std::vector<std::string>> ReadStringsV1(hid_t root, const FileBounds& f) {
  ASSIGN_OR_RETURN(h5::CheckedDataset d,
                   h5::OpenChecked(root, trace_paths::kStrings, H5T_STRING, 0, kMaxStrings, f,
                                   /*check_storage=*/false));
  if (H5Tis_variable_str(d.file_type.get()) <= 0)
    return InvalidArgument(f.path, ": dataset /", trace_paths::kStrings,
                           ": expected variable-length strings (schema version 1)");
  return h5::ReadVlenStringsFromHeap(d.dataset.get(), d.count, trace_paths::kStrings, f);
}

// Version 2: /strings/data (uint8, concatenated UTF-8) and /strings/offsets (int64, n + 1
// non-decreasing offsets from 0 to the size of data).
StatusOr<std::vector<std::string>> ReadStringsV2(hid_t root, const FileBounds& f) {
  ASSIGN_OR_RETURN(std::vector<uint8_t> data,
                   h5::ReadCheckedBytes(root, trace_paths::kStringData, f));
  ASSIGN_OR_RETURN(std::vector<int64_t> offsets,
                   h5::ReadCheckedInt64s(root, trace_paths::kStringOffsets, kMaxStrings + 1, f));
  const std::string where = f.path + ": dataset /" + trace_paths::kStringOffsets;
  if (offsets.empty() || offsets[0] != 0 ||
      offsets.back() != static_cast<int64_t>(data.size()))
    return DataLoss(where, ": must start at 0 and end at the size of /", trace_paths::kStringData,
                    " (", data.size(), " bytes), found ", offsets.size(), " offsets",
                    offsets.empty() ? "" : " ending at " + std::to_string(offsets.back()));
  std::vector<std::string> out(offsets.size() - 1);
  for (size_t i = 0; i + 1 < offsets.size(); ++i) {
    if (offsets[i + 1] < offsets[i] || offsets[i + 1] > offsets.back())
      return DataLoss(where, ": offset ", i + 1, " (", offsets[i + 1],
                      ") is not between the previous offset (", offsets[i], ") and the end");
    out[i].assign(reinterpret_cast<const char*>(data.data()) + offsets[i],
                  static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  return out;
}

// Version 2 keeps free text in /strings: these attributes hold string ids.
StatusOr<std::string> ReadStringIdAttr(hid_t root, const std::string& name, const FileBounds& f,
                                       const std::vector<std::string>& strings) {
  ASSIGN_OR_RETURN(int64_t id, h5::ReadCheckedIntAttr(root, name, f));
  if (id < 0 || static_cast<uint64_t>(id) >= strings.size())
    return InvalidArgument(f.path, ": attribute '", name, "': string id ", id,
                           " is out of range [0, ", strings.size(), ")");
  return strings[static_cast<size_t>(id)];
}

Status ReadMetadataV2(hid_t root, const FileBounds& f, Trace* t) {
  ASSIGN_OR_RETURN(std::string mode, h5::ReadCheckedFixedStringAttr(root, "mode",
                                                                    kMaxShortAttrBytes, f));
  RETURN_IF_ERROR(SetMode(mode, f, t));
  ASSIGN_OR_RETURN(t->clock, h5::ReadCheckedFixedStringAttr(root, "clock", kMaxShortAttrBytes, f));
  TraceMetadata& m = t->metadata;
  ASSIGN_OR_RETURN(m.git_revision, ReadStringIdAttr(root, "git_revision", f, t->strings));
  ASSIGN_OR_RETURN(m.command_line, ReadStringIdAttr(root, "command_line", f, t->strings));
  ASSIGN_OR_RETURN(m.host, ReadStringIdAttr(root, "host", f, t->strings));
  ASSIGN_OR_RETURN(m.config_json, ReadStringIdAttr(root, "config", f, t->strings));
  return Status::OK();
}

Status ReadTables(hid_t root, const FileBounds& f, Trace* t) {
  ASSIGN_OR_RETURN(t->devices, h5::ReadCheckedTable<DeviceRecord>(root, trace_paths::kDevices,
                                                                  DeviceH5Type().get(), f));
  ASSIGN_OR_RETURN(t->ops, h5::ReadCheckedTable<OpRecord>(root, trace_paths::kGraphOps,
                                                          OpH5Type().get(), f));
  ASSIGN_OR_RETURN(t->edges, h5::ReadCheckedTable<EdgeRecord>(root, trace_paths::kGraphEdges,
                                                              EdgeH5Type().get(), f));
  ASSIGN_OR_RETURN(t->events, h5::ReadCheckedTable<EventRecord>(root, trace_paths::kEvents,
                                                                EventH5Type().get(), f));
  ASSIGN_OR_RETURN(t->steps, h5::ReadCheckedTable<StepRecord>(root, trace_paths::kSteps,
                                                              StepH5Type().get(), f));
  ASSIGN_OR_RETURN(t->memory, h5::ReadCheckedTable<MemoryRecord>(root, trace_paths::kMemory,
                                                                 MemoryH5Type().get(), f));
  ASSIGN_OR_RETURN(t->metrics, h5::ReadCheckedTable<MetricRecord>(root, trace_paths::kMetrics,
                                                                  MetricH5Type().get(), f));
  return Status::OK();
}

}  // namespace

StatusOr<Trace> ReadTraceFile(const std::string& path) {
  Trace t;
  t.path = path;
  ASSIGN_OR_RETURN(FileBounds f, h5::GetFileBounds(path));
  ASSIGN_OR_RETURN(h5::Handle file, h5::OpenFileForRead(path, "trace"));
  const hid_t root = file.get();
  RETURN_IF_ERROR(h5::CheckFlowbenchFileKind(root, path, "trace"));
  ASSIGN_OR_RETURN(t.schema_version, h5::ReadCheckedIntAttr(root, "schema_version", f));
  if (t.schema_version < kOldestReadableTraceSchemaVersion ||
      t.schema_version > kTraceSchemaVersion)
    return FailedPrecondition(path, ": trace schema_version is ", t.schema_version,
                              ", this flowbench reads versions ",
                              kOldestReadableTraceSchemaVersion, " to ", kTraceSchemaVersion);
  ASSIGN_OR_RETURN(t.metadata.seed, h5::ReadCheckedIntAttr(root, "seed", f));
  if (t.schema_version == 1) {
    // /strings first: parsing its heap collections here rejects corrupt ones before libhdf5
    // reads the attributes, which usually live in the same collection.
    ASSIGN_OR_RETURN(t.strings, ReadStringsV1(root, f));
    RETURN_IF_ERROR(ReadMetadataV1(root, f, &t));
  } else {
    ASSIGN_OR_RETURN(t.strings, ReadStringsV2(root, f));
    RETURN_IF_ERROR(ReadMetadataV2(root, f, &t));
  }
  RETURN_IF_ERROR(ReadTables(root, f, &t));
  return t;
}

}  // namespace fb
