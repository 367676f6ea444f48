#pragma once
// Reads a trace file of schema version 1 or 2 in the calling process, checking each dataset and
// attribute before libhdf5 reads it (hdf5_checked.h) and every id after (TraceReader's checks).
// TraceReader::Open runs this in a child process (isolated_call.h); call it directly only for
// trusted files or from such a child. The caller holds h5::Hdf5Guard.
//
// Version 2 holds fixed-size data only: integer attributes, fixed-length string attributes,
// compound tables of integers and doubles, and the string table as a uint8 blob with int64
// offsets. Version 1 also holds variable-length strings: /strings is read from the file's bytes
// by ReadVlenStringsFromHeap (global_heap_strings.h), never through libhdf5's global heap; its
// six string attributes are read by libhdf5 (whose heap reader does not check them: only the
// child process protects against a corrupt version-1 attribute).
#include <string>

#include "engine/trace/trace_reader.h"

namespace fb {

// Versions this flowbench reads.
inline constexpr int64_t kOldestReadableTraceSchemaVersion = 1;

// Errors as TraceReader::Open documents, without the isolation's crash and deadline errors.
StatusOr<Trace> ReadTraceFile(const std::string& path);

}  // namespace fb
