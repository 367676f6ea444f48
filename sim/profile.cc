#include "sim/profile.h"

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>

#include "engine/trace/hdf5_checked.h"
#include "engine/trace/hdf5_file_kind.h"
#include "engine/trace/hdf5_util.h"
#include "sim/profile_transfers.h"

namespace fb::sim {
namespace {

constexpr size_t kShortName = 64, kNodeName = 192;

struct PointRow {
  char model[kShortName];
  char node[kNodeName];
  char op[kShortName];
  int64_t batch;
  int32_t threads;
  int32_t samples;
  double flops, bytes, time_ns;
};

struct StepRowV1 {  // schema 1
  char model[kShortName];
  int64_t batch;
  int32_t threads;
  int32_t steps;
  double median_step_ns, mean_step_ns, node_sum_ns, load_average;
};

struct StepRow {  // schema 2
  char model[kShortName];
  int64_t batch;
  int32_t threads;
  int32_t steps;
  double median_step_ns, mean_step_ns, node_sum_ns, load_average;
  int32_t nodes;
  int32_t handoffs;
};

struct ExecutorRowV1 {  // schema 1
  int32_t threads;
  int32_t pad;
  double per_step_ns, per_node_inline_ns, per_node_pool_ns;
};

struct ExecutorRowV3 {  // schemas 2 and 3
  int32_t threads;
  int32_t has_step_costs;  // 0 or 1
  double per_step_ns, per_node_inline_ns, per_node_pool_ns;
  double run_ns, node_gap_ns, handoff_ns;
};

struct ExecutorRow {  // schema 4: a schema-3 row, then the per-transfer cost
  int32_t threads;
  int32_t has_step_costs;  // 0 or 1
  double per_step_ns, per_node_inline_ns, per_node_pool_ns;
  double run_ns, node_gap_ns, handoff_ns;
  int32_t has_transfer_cost;  // 0 or 1
  int32_t pad;
  double transfer_ns, transfer_ns_per_byte, compress_ns_per_byte, decompress_ns_per_byte;
};

static_assert(offsetof(ExecutorRow, handoff_ns) == offsetof(ExecutorRowV3, handoff_ns),
              "a schema-3 executor row is a prefix of a schema-4 row");

static_assert(offsetof(StepRow, load_average) == offsetof(StepRowV1, load_average),
              "a schema-1 step row is a prefix of a schema-2 row");

h5::Handle FixedString(size_t bytes) {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, bytes);
  H5Tset_strpad(t, H5T_STR_NULLPAD);
  return h5::Handle(t, H5Tclose);
}

h5::Handle Compound(size_t size) { return h5::Handle(H5Tcreate(H5T_COMPOUND, size), H5Tclose); }

#define FB_PROFILE_FIELD(handle, Struct, field, type) \
  H5Tinsert((handle).get(), #field, offsetof(Struct, field), type)

h5::Handle PointType() {
  h5::Handle t = Compound(sizeof(PointRow));
  h5::Handle short_name = FixedString(kShortName), node_name = FixedString(kNodeName);
  FB_PROFILE_FIELD(t, PointRow, model, short_name.get());
  FB_PROFILE_FIELD(t, PointRow, node, node_name.get());
  FB_PROFILE_FIELD(t, PointRow, op, short_name.get());
  FB_PROFILE_FIELD(t, PointRow, batch, H5T_NATIVE_INT64);
  FB_PROFILE_FIELD(t, PointRow, threads, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, PointRow, samples, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, PointRow, flops, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, PointRow, bytes, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, PointRow, time_ns, H5T_NATIVE_DOUBLE);
  return t;
}

template <typename Row>
h5::Handle StepTypeOf() {
  h5::Handle t = Compound(sizeof(Row));
  h5::Handle short_name = FixedString(kShortName);
  FB_PROFILE_FIELD(t, Row, model, short_name.get());
  FB_PROFILE_FIELD(t, Row, batch, H5T_NATIVE_INT64);
  FB_PROFILE_FIELD(t, Row, threads, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, Row, steps, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, Row, median_step_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, mean_step_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, node_sum_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, load_average, H5T_NATIVE_DOUBLE);
  return t;
}

h5::Handle StepTypeV1() { return StepTypeOf<StepRowV1>(); }

h5::Handle StepType() {
  h5::Handle t = StepTypeOf<StepRow>();
  FB_PROFILE_FIELD(t, StepRow, nodes, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, StepRow, handoffs, H5T_NATIVE_INT32);
  return t;
}

h5::Handle ExecutorTypeV1() {
  h5::Handle t = Compound(sizeof(ExecutorRowV1));
  FB_PROFILE_FIELD(t, ExecutorRowV1, threads, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, ExecutorRowV1, per_step_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, ExecutorRowV1, per_node_inline_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, ExecutorRowV1, per_node_pool_ns, H5T_NATIVE_DOUBLE);
  return t;
}

// The schema-3 fields of an executor row type (ExecutorRowV3 or ExecutorRow).
template <typename Row>
h5::Handle ExecutorTypeOf() {
  h5::Handle t = Compound(sizeof(Row));
  FB_PROFILE_FIELD(t, Row, threads, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, Row, has_step_costs, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, Row, per_step_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, per_node_inline_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, per_node_pool_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, run_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, node_gap_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, Row, handoff_ns, H5T_NATIVE_DOUBLE);
  return t;
}

h5::Handle ExecutorTypeV3() { return ExecutorTypeOf<ExecutorRowV3>(); }

h5::Handle ExecutorType() {
  h5::Handle t = ExecutorTypeOf<ExecutorRow>();
  FB_PROFILE_FIELD(t, ExecutorRow, has_transfer_cost, H5T_NATIVE_INT32);
  FB_PROFILE_FIELD(t, ExecutorRow, transfer_ns, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, ExecutorRow, transfer_ns_per_byte, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, ExecutorRow, compress_ns_per_byte, H5T_NATIVE_DOUBLE);
  FB_PROFILE_FIELD(t, ExecutorRow, decompress_ns_per_byte, H5T_NATIVE_DOUBLE);
  return t;
}

Status CopyName(const std::string& name, char* field, size_t size, const char* what) {
  if (name.size() >= size)
    return InvalidArgument("profile: ", what, " name '", name, "' is longer than ", size - 1,
                           " bytes");
  std::memset(field, 0, size);
  std::memcpy(field, name.data(), name.size());
  return Status::OK();
}

std::string FieldString(const char* field, size_t size) {
  return std::string(field, strnlen(field, size));
}

Status CheckValues(const std::string& path, const char* table, size_t row,
                   std::initializer_list<double> values, int64_t batch, int32_t threads) {
  for (double v : values)
    if (!std::isfinite(v) || v < 0)
      return InvalidArgument(path, ": profile ", table, " row ", row,
                             " holds a negative or non-finite time, FLOP or byte count (", v, ")");
  if (batch < 1 || threads < 1)
    return InvalidArgument(path, ": profile ", table, " row ", row, " has batch ", batch,
                           " and threads ", threads, ", expected both >= 1");
  return Status::OK();
}

Status WriteTables(hid_t root, const Profile& p, const std::string& path) {
  std::vector<PointRow> points(p.points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    const ProfilePoint& s = p.points[i];
    PointRow& r = points[i];
    RETURN_IF_ERROR(CopyName(s.model, r.model, kShortName, "model"));
    RETURN_IF_ERROR(CopyName(s.node, r.node, kNodeName, "node"));
    RETURN_IF_ERROR(CopyName(s.op, r.op, kShortName, "op type"));
    r.batch = s.batch, r.threads = s.threads, r.samples = s.samples;
    r.flops = s.flops, r.bytes = s.bytes, r.time_ns = s.time_ns;
  }
  std::vector<StepRow> steps(p.steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const ProfileStep& s = p.steps[i];
    StepRow& r = steps[i];
    RETURN_IF_ERROR(CopyName(s.model, r.model, kShortName, "model"));
    r.batch = s.batch, r.threads = s.threads, r.steps = s.steps;
    r.median_step_ns = s.median_step_ns, r.mean_step_ns = s.mean_step_ns;
    r.node_sum_ns = s.node_sum_ns, r.load_average = s.load_average;
    r.nodes = s.nodes, r.handoffs = s.handoffs;
  }
  std::vector<ExecutorRow> executor(p.executor.size());
  for (size_t i = 0; i < executor.size(); ++i) {
    const ProfileExecutor& s = p.executor[i];
    executor[i] = {s.threads,          s.has_step_costs ? 1 : 0, s.per_step_ns,
                   s.per_node_inline_ns, s.per_node_pool_ns,       s.run_ns,
                   s.node_gap_ns,      s.handoff_ns,               s.has_transfer_cost ? 1 : 0,
                   0,                  s.transfer_ns,              s.transfer_ns_per_byte,
                   s.compress_ns_per_byte, s.decompress_ns_per_byte};
  }
  RETURN_IF_ERROR(h5::WriteTable(root, "points", PointType().get(), points, path));
  RETURN_IF_ERROR(h5::WriteTable(root, "steps", StepType().get(), steps, path));
  RETURN_IF_ERROR(h5::WriteTable(root, "executor", ExecutorType().get(), executor, path));
  return WriteTransferTable(root, p.executor, path);  // schema 5
}

constexpr size_t kTargetAttrBytes = 256;

// The device_type, device and mode attributes (version 2).
Status WriteTarget(hid_t root, const Profile& p, const std::string& path) {
  for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"device_type",
                                                                                &p.device_type},
                                    {"device", &p.device},
                                    {"mode", &p.mode}}) {
    if (value->size() >= kTargetAttrBytes)
      return InvalidArgument("profile: ", name, " '", *value, "' is longer than ",
                             kTargetAttrBytes - 1, " bytes");
    RETURN_IF_ERROR(h5::WriteFixedStringAttr(root, name, *value, path));
  }
  return Status::OK();
}

Status ReadTarget(hid_t root, const h5::FileBounds& f, Profile* p) {
  const std::string& path = f.path;
  ASSIGN_OR_RETURN(p->device_type,
                   h5::ReadCheckedFixedStringAttr(root, "device_type", kTargetAttrBytes, f));
  ASSIGN_OR_RETURN(p->device, h5::ReadCheckedFixedStringAttr(root, "device", kTargetAttrBytes, f));
  ASSIGN_OR_RETURN(p->mode, h5::ReadCheckedFixedStringAttr(root, "mode", kTargetAttrBytes, f));
  if (p->device_type != "CPU" && p->device_type != "GPU")
    return InvalidArgument(path, ": profile device_type is '", p->device_type,
                           "', expected CPU or GPU");
  if (p->mode != "forward" && p->mode != "forward-backward" && p->mode != "train")
    return InvalidArgument(path, ": profile mode is '", p->mode,
                           "', expected forward, forward-backward or train");
  return Status::OK();
}

}  // namespace

Status WriteProfile(const std::string& path, const Profile& p) {
  h5::Hdf5Guard guard;
  h5::Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.valid()) return h5::Error(Code::kInternal, path, "cannot create profile file");
  const hid_t root = file.get();
  RETURN_IF_ERROR(h5::WriteFixedStringAttr(root, "format", kProfileFormat, path));
  // Always the current layout, whatever version `p` was read from.
  RETURN_IF_ERROR(h5::WriteAttr(root, "schema_version", kProfileSchemaVersion, path));
  RETURN_IF_ERROR(h5::WriteAttr(root, "host", p.host, path));
  RETURN_IF_ERROR(h5::WriteAttr(root, "created", p.created, path));
  RETURN_IF_ERROR(h5::WriteAttr(root, "command_line", p.command_line, path));
  RETURN_IF_ERROR(WriteTarget(root, p, path));
  RETURN_IF_ERROR(WriteTables(root, p, path));
  if (!file.Reset()) return h5::Error(Code::kInternal, path, "cannot close profile file");
  return Status::OK();
}

namespace {

// /executor of version 1's layout (three costs, has_step_costs = false), of versions 2-3 (no
// transfer cost: has_transfer_cost = false) or the current one.
Status ReadExecutor(hid_t root, const h5::FileBounds& f, bool v1_tables, int64_t version,
                    Profile* p) {
  std::vector<ExecutorRow> rows;
  if (v1_tables) {
    ASSIGN_OR_RETURN(auto v1, h5::ReadCheckedTable<ExecutorRowV1>(root, "executor",
                                                                  ExecutorTypeV1().get(), f));
    for (const ExecutorRowV1& r : v1)
      rows.push_back({r.threads, 0, r.per_step_ns, r.per_node_inline_ns, r.per_node_pool_ns, 0, 0,
                      0, 0, 0, 0, 0, 0, 0});
  } else if (version < 4) {
    ASSIGN_OR_RETURN(auto v3, h5::ReadCheckedTable<ExecutorRowV3>(root, "executor",
                                                                  ExecutorTypeV3().get(), f));
    for (const ExecutorRowV3& r : v3)
      rows.push_back({r.threads, r.has_step_costs, r.per_step_ns, r.per_node_inline_ns,
                      r.per_node_pool_ns, r.run_ns, r.node_gap_ns, r.handoff_ns, 0, 0, 0, 0, 0, 0});
  } else {
    ASSIGN_OR_RETURN(rows, h5::ReadCheckedTable<ExecutorRow>(root, "executor",
                                                             ExecutorType().get(), f));
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const ExecutorRow& r = rows[i];
    RETURN_IF_ERROR(CheckValues(f.path, "/executor", i,
                                {r.per_step_ns, r.per_node_inline_ns, r.per_node_pool_ns,
                                 r.run_ns, r.node_gap_ns, r.handoff_ns, r.transfer_ns,
                                 r.transfer_ns_per_byte, r.compress_ns_per_byte,
                                 r.decompress_ns_per_byte},
                                1, r.threads));
    p->executor.push_back({r.threads, r.per_step_ns, r.per_node_inline_ns, r.per_node_pool_ns,
                           r.has_step_costs != 0, r.run_ns, r.node_gap_ns, r.handoff_ns,
                           r.has_transfer_cost != 0, r.transfer_ns, r.transfer_ns_per_byte,
                           r.compress_ns_per_byte, r.decompress_ns_per_byte, {}});
  }
  return version >= 5 ? ReadTransferTable(root, f, &p->executor) : Status::OK();
}

Status ReadTables(hid_t root, const h5::FileBounds& f, bool v1_tables, int64_t version,
                  Profile* p) {
  const std::string& path = f.path;
  ASSIGN_OR_RETURN(auto points, h5::ReadCheckedTable<PointRow>(root, "points",
                                                                   PointType().get(), f));
  for (size_t i = 0; i < points.size(); ++i) {
    const PointRow& r = points[i];
    RETURN_IF_ERROR(CheckValues(path, "/points", i, {r.flops, r.bytes, r.time_ns}, r.batch,
                                r.threads));
    p->points.push_back({FieldString(r.model, kShortName), FieldString(r.node, kNodeName),
                         FieldString(r.op, kShortName), r.batch, r.threads, r.flops, r.bytes,
                         r.time_ns, r.samples});
  }
  std::vector<StepRow> steps;
  if (v1_tables) {
    ASSIGN_OR_RETURN(auto v1, h5::ReadCheckedTable<StepRowV1>(root, "steps", StepTypeV1().get(),
                                                               f));
    for (const StepRowV1& r : v1) {
      StepRow row{};
      std::memcpy(&row, &r, sizeof r);  // the same leading fields; nodes and handoffs 0
      steps.push_back(row);
    }
  } else {
    ASSIGN_OR_RETURN(steps, h5::ReadCheckedTable<StepRow>(root, "steps", StepType().get(), f));
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const StepRow& r = steps[i];
    RETURN_IF_ERROR(CheckValues(path, "/steps", i,
                                {r.median_step_ns, r.mean_step_ns, r.node_sum_ns, r.load_average,
                                 static_cast<double>(r.nodes), static_cast<double>(r.handoffs)},
                                r.batch, r.threads));
    p->steps.push_back({FieldString(r.model, kShortName), r.batch, r.threads, r.median_step_ns,
                        r.mean_step_ns, r.node_sum_ns, r.steps, r.load_average, r.nodes,
                        r.handoffs});
  }
  return ReadExecutor(root, f, v1_tables, version, p);
}

}  // namespace

StatusOr<Profile> ReadProfile(const std::string& path) {
  h5::Hdf5Guard guard;
  ASSIGN_OR_RETURN(h5::FileBounds f, h5::GetFileBounds(path, "profile"));
  ASSIGN_OR_RETURN(h5::Handle file, h5::OpenFileForRead(path, "profile"));
  const hid_t root = file.get();
  RETURN_IF_ERROR(h5::CheckFlowbenchFileKind(root, path, "profile"));
  StatusOr<std::string> format = h5::ReadCheckedFixedStringAttr(root, "format", 64, f);
  if (!format.ok() || *format != kProfileFormat)
    return InvalidArgument(path, ": not a flowbench profile (expected the root attribute ",
                           "format = '", kProfileFormat, "', ",
                           format.ok() ? "found '" + *format + "'" : format.status().message(),
                           ")");
  Profile p;
  ASSIGN_OR_RETURN(p.schema_version, h5::ReadCheckedIntAttr(root, "schema_version", f));
  if (p.schema_version < kOldestProfileSchemaVersion || p.schema_version > kProfileSchemaVersion)
    return FailedPrecondition(path, ": profile schema_version is ", p.schema_version,
                              ", this flowbench reads versions ", kOldestProfileSchemaVersion,
                              " to ", kProfileSchemaVersion, " (rerun flowbench profile)");
  // Version 1, and the version 2 that added only the attributes, have version 1's tables.
  const bool has_target = p.schema_version >= 2 && H5Aexists(root, "device_type") > 0;
  const bool v1_tables = p.schema_version == 1 || (p.schema_version == 2 && has_target);
  if (has_target || p.schema_version >= 3) {
    RETURN_IF_ERROR(ReadTarget(root, f, &p));
  }  // otherwise the defaults: a CPU profile of training steps (all it could hold)
  RETURN_IF_ERROR(ReadTables(root, f, v1_tables, p.schema_version, &p));
  return p;
}

}  // namespace fb::sim
