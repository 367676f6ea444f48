#pragma once
// TraceReader: loads a trace written by TraceWriter (schema: engine/trace/trace_schema.h,
// docs/trace-format.md) into plain structs, for `flowbench trace`, the simulator's measured cost
// model, tests and tools. The whole file is read into memory (events take 56 bytes each).
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

struct TraceReadOptions {
  // Read in a forked child process (engine/trace/isolated_call.h), so that a crash or an endless
  // loop of libhdf5 on a corrupt file becomes a DataLoss error. Turn off only for trusted files
  // (or to debug the reader); the environment variable FLOWBENCH_TRACE_READ_IN_PROCESS=1 does
  // the same for every read.
  bool isolate = true;
  // Deadline of the isolated read in seconds; 0 means 30 s plus 1 s per 10 MB of file, or
  // FLOWBENCH_TRACE_READ_TIMEOUT_S when set.
  double timeout_s = 0;
};

class TraceReader {
 public:
  // Reads the trace at `path` (schema versions 1 and 2, docs/trace-format.md). Every dataset's
  // type, shape and storage is checked against the schema and the file's size before it is read,
  // and every id after (engine/trace/trace_file_reader.h). No file crashes or hangs the caller.
  // Errors, each naming the file (and the dataset or attribute where one is at fault): NotFound
  // (no such file, a missing dataset or attribute), DataLoss (not an HDF5 file; truncated or
  // corrupt: storage that does not fit the file, data libhdf5 cannot read, a reader that crashed
  // or ran past the deadline), FailedPrecondition (a schema_version this flowbench does not
  // read), InvalidArgument (a dataset of the wrong type or shape, an id out of range, an unknown
  // mode).
  static StatusOr<Trace> Open(const std::string& path, const TraceReadOptions& options = {});
};

}  // namespace fb
