#pragma once
// A flat byte encoding of a Trace (engine/trace/trace_reader.h), used to hand a trace read in
// an isolated child process (isolated_call.h) back to the parent. Not a file format: both ends
// are the same binary. Decoding checks every length against the bytes it has, so a truncated
// or garbled buffer is an error, never an out-of-bounds read.
#include <string>

#include "engine/trace/trace_reader.h"

namespace fb {

std::string SerializeTrace(const Trace& trace);

// Fills `trace` (all but `path`) from `bytes`. DataLoss naming `trace->path` when `bytes` is
// not a complete encoding.
Status DeserializeTrace(const std::string& bytes, Trace* trace);

}  // namespace fb
