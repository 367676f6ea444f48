#include "engine/trace/trace_schema.h"

#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <type_traits>

namespace fb {

const char* EventKindName(int32_t kind) {
  switch (kind) {
    case static_cast<int32_t>(EventKind::kCompute): return "compute";
    case static_cast<int32_t>(EventKind::kSend): return "send";
    case static_cast<int32_t>(EventKind::kRecv): return "recv";
    case static_cast<int32_t>(EventKind::kMemcpy): return "memcpy";
    default: return "unknown";
  }
}

EventKind EventKindForOp(const std::string& op) {
  if (op == "_Send" || op == "Send" || op == "_HostSend") return EventKind::kSend;
  if (op == "_Recv" || op == "Recv" || op == "_HostRecv") return EventKind::kRecv;
  if (op.rfind("Memcpy", 0) == 0 || op.rfind("_Copy", 0) == 0) return EventKind::kMemcpy;
  return EventKind::kCompute;
}

const char* TraceModeName(TraceMode mode) { return mode == TraceMode::kSim ? "sim" : "real"; }

StatusOr<TraceMode> TraceModeFromName(const std::string& name) {
  if (name == "real") return TraceMode::kReal;
  if (name == "sim") return TraceMode::kSim;
  return InvalidArgument("trace mode must be \"real\" or \"sim\", got \"", name, "\"");
}

TraceMetadata DefaultTraceMetadata(TraceMode mode, int argc, const char* const* argv) {
  TraceMetadata m;
  m.mode = mode;
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) m.host = host;
  for (int i = 0; i < argc; ++i) m.command_line += (i ? " " : "") + std::string(argv[i]);
  if (const char* rev = std::getenv("FLOWBENCH_GIT_REVISION")) {
    m.git_revision = rev;
  } else {
#ifdef FB_GIT_REVISION
    m.git_revision = FB_GIT_REVISION;
#endif
  }
  return m;
}

namespace {

template <typename M>
hid_t NativeType() {
  if constexpr (std::is_same_v<M, int32_t>) return H5T_NATIVE_INT32;
  else if constexpr (std::is_same_v<M, int64_t>) return H5T_NATIVE_INT64;
  else {
    static_assert(std::is_same_v<M, double>, "trace records hold int32, int64 or double only");
    return H5T_NATIVE_DOUBLE;
  }
}

h5::Handle NewCompound(size_t size) { return h5::Handle(H5Tcreate(H5T_COMPOUND, size), H5Tclose); }

}  // namespace

#define FB_H5_FIELD(handle, Struct, field)                        \
  H5Tinsert((handle).get(), #field, offsetof(Struct, field),     \
            NativeType<decltype(Struct::field)>())

h5::Handle EventH5Type() {
  h5::Handle t = NewCompound(sizeof(EventRecord));
  FB_H5_FIELD(t, EventRecord, kind);
  FB_H5_FIELD(t, EventRecord, rank);
  FB_H5_FIELD(t, EventRecord, device);
  FB_H5_FIELD(t, EventRecord, stream);
  FB_H5_FIELD(t, EventRecord, step);
  FB_H5_FIELD(t, EventRecord, node);
  FB_H5_FIELD(t, EventRecord, start_ns);
  FB_H5_FIELD(t, EventRecord, end_ns);
  FB_H5_FIELD(t, EventRecord, bytes);
  FB_H5_FIELD(t, EventRecord, peer_device);
  FB_H5_FIELD(t, EventRecord, op_type);
  return t;
}

h5::Handle DeviceH5Type() {
  h5::Handle t = NewCompound(sizeof(DeviceRecord));
  FB_H5_FIELD(t, DeviceRecord, id);
  FB_H5_FIELD(t, DeviceRecord, name);
  FB_H5_FIELD(t, DeviceRecord, type);
  return t;
}

h5::Handle OpH5Type() {
  h5::Handle t = NewCompound(sizeof(OpRecord));
  FB_H5_FIELD(t, OpRecord, id);
  FB_H5_FIELD(t, OpRecord, node);
  FB_H5_FIELD(t, OpRecord, op_type);
  FB_H5_FIELD(t, OpRecord, device);
  return t;
}

h5::Handle EdgeH5Type() {
  h5::Handle t = NewCompound(sizeof(EdgeRecord));
  FB_H5_FIELD(t, EdgeRecord, src);
  FB_H5_FIELD(t, EdgeRecord, src_output);
  FB_H5_FIELD(t, EdgeRecord, dst);
  FB_H5_FIELD(t, EdgeRecord, dst_input);
  FB_H5_FIELD(t, EdgeRecord, bytes);
  return t;
}

h5::Handle StepH5Type() {
  h5::Handle t = NewCompound(sizeof(StepRecord));
  FB_H5_FIELD(t, StepRecord, step);
  FB_H5_FIELD(t, StepRecord, rank);
  FB_H5_FIELD(t, StepRecord, start_ns);
  FB_H5_FIELD(t, StepRecord, end_ns);
  FB_H5_FIELD(t, StepRecord, loss);
  return t;
}

h5::Handle MemoryH5Type() {
  h5::Handle t = NewCompound(sizeof(MemoryRecord));
  FB_H5_FIELD(t, MemoryRecord, step);
  FB_H5_FIELD(t, MemoryRecord, device);
  FB_H5_FIELD(t, MemoryRecord, peak_bytes);
  return t;
}

h5::Handle MetricH5Type() {
  h5::Handle t = NewCompound(sizeof(MetricRecord));
  FB_H5_FIELD(t, MetricRecord, step);
  FB_H5_FIELD(t, MetricRecord, name);
  FB_H5_FIELD(t, MetricRecord, value);
  return t;
}

#undef FB_H5_FIELD

}  // namespace fb
