#pragma once
// A hand-made in-memory trace shared by the export and summary tests.
#include "engine/trace/trace_reader.h"

namespace fb::test {

// Two devices; on CPU:0 thread 7 runs a (0-100 us) with b nested inside (10-20 us), then an
// asynchronous recv (50-150 us) that partially overlaps a; CPU:1 thread 7 runs c in step 1.
inline Trace SmallTrace() {
  Trace t;
  t.path = "mem.h5";
  t.schema_version = kTraceSchemaVersion;
  t.strings = {"/device:CPU:0", "CPU", "/device:CPU:1", "a", "MatMul", "b", "Relu", "r", "_Recv",
               "c"};
  t.devices = {{0, 0, 1}, {1, 2, 1}};
  const int64_t base = 1'000'000'000;  // absolute ns; the export starts at the first event
  auto ev = [&](EventKind k, int32_t dev, int64_t step, int32_t node, int32_t op, int64_t s_us,
                int64_t e_us, int64_t bytes, int32_t peer) {
    EventRecord e;
    e.kind = static_cast<int32_t>(k);
    e.device = dev;
    e.stream = 7;
    e.step = step;
    e.node = node;
    e.op_type = op;
    e.start_ns = base + s_us * 1000;
    e.end_ns = base + e_us * 1000;
    e.bytes = bytes;
    e.peer_device = peer;
    t.events.push_back(e);
  };
  ev(EventKind::kCompute, 0, 0, 3, 4, 0, 100, 64, -1);
  ev(EventKind::kCompute, 0, 0, 5, 6, 10, 20, 64, -1);
  ev(EventKind::kRecv, 0, 0, 7, 8, 50, 150, 4096, 1);
  ev(EventKind::kCompute, 1, 1, 9, 6, 200, 250, 8, -1);
  return t;
}

}  // namespace fb::test
