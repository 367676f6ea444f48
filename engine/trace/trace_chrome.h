#pragma once
// Chrome trace-event export of a flowbench trace, for chrome://tracing and Perfetto
// (https://ui.perfetto.dev). Layout: one process (pid) per device, named after it; one thread
// (tid) per (device, stream/thread) lane, tids unique across the file. Events of one stream that
// overlap without nesting (asynchronous Recvs, simulated activities) go to extra lanes
// ("thread 123 #2"), so no row holds partially overlapping events, which Chrome and Perfetto
// render wrong. Every event is a complete event ("ph": "X") with ts and dur in microseconds
// relative to the trace's first event; args carry op, step, rank and bytes (plus the peer device
// for send/recv/memcpy). Format reference: "Trace Event Format" (Google, 2016).
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/trace/trace_reader.h"

namespace fb {

struct ChromeExportOptions {
  // Keep only events overlapping [start_ns, end_ns), in ns relative to the trace's first event
  // start (the 0 of the exported timeline); -1 leaves that side open.
  int64_t start_ns = -1;
  int64_t end_ns = -1;
  int64_t step = -1;  // keep only this step's events; -1 keeps all
  bool gzip = false;  // gzip the output (also implied by a ".gz" file name)
};

// The trace-event JSON object {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}.
nlohmann::json ChromeTraceJson(const Trace& trace, const ChromeExportOptions& options);

// InvalidArgument naming the trace when `options` select none of the trace's events (a step
// without events, a window after the last one; the message says which steps and times hold
// events) or when the window's start is not before its end. OK for a trace without events.
Status CheckChromeExportSelection(const Trace& trace, const ChromeExportOptions& options);

// Writes ChromeTraceJson to `out_path`, gzip-compressed (zlib) when options.gzip or the name ends
// in ".gz". Errors of CheckChromeExportSelection (nothing is written then); Internal naming
// `out_path` when it cannot be written.
Status WriteChromeTrace(const Trace& trace, const std::string& out_path,
                        const ChromeExportOptions& options);

}  // namespace fb
