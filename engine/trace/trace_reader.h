#pragma once
// TraceReader: loads a trace written by TraceWriter (schema: engine/trace/trace_schema.h,
// docs/trace-format.md) into plain structs, for `flowbench trace`, tests and tools. The whole
// file is read into memory (events take 56 bytes each).
#include <string>
#include <vector>

#include "engine/trace/trace_schema.h"

namespace fb {

// A whole trace. Records are as stored; use str() and device_name() to resolve ids.
struct Trace {
  std::string path;
  int64_t schema_version = 0;
  std::string clock;  // "ns"
  TraceMetadata metadata;
  std::vector<std::string> strings;
  std::vector<DeviceRecord> devices;
  std::vector<OpRecord> ops;
  std::vector<EdgeRecord> edges;
  std::vector<EventRecord> events;
  std::vector<StepRecord> steps;
  std::vector<MemoryRecord> memory;
  std::vector<MetricRecord> metrics;

  // The string with id `id`; "" for -1 or an out-of-range id.
  const std::string& str(int32_t id) const;
  // The name of device `id`; "" for -1 or an out-of-range id.
  const std::string& device_name(int32_t id) const;
};

class TraceReader {
 public:
  // Reads the trace at `path`. Errors, each naming the file: NotFound (no such file, or a
  // missing dataset/attribute, named), DataLoss (not an HDF5 file, truncated or corrupt),
  // FailedPrecondition (schema_version other than kTraceSchemaVersion), InvalidArgument (a
  // dataset of the wrong shape, an id out of range, an unknown mode).
  static StatusOr<Trace> Open(const std::string& path);
};

}  // namespace fb
