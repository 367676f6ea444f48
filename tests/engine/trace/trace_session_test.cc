// Tracing a real Session::Run: RunOptions.trace -> RunMetadata.step_stats -> TraceWriter.
#include <map>

#include <catch2/catch.hpp>

#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_writer.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb {
namespace {

// x on CPU:0 feeds y on CPU:1, so partitioning adds _Send/_Recv pairs (whitepaper Figure 4).
const char* kCrossDevice = R"({"nodes": [
  {"name": "x", "op": "Const", "device": "/device:CPU:0",
   "attrs": {"value": {"tensor": {"dtype": "float", "shape": [2], "values": [1, 2]}}, "dtype": {"type": "float"}}},
  {"name": "y", "op": "Identity", "device": "/device:CPU:1", "inputs": ["x"], "attrs": {"T": {"type": "float"}}},
  {"name": "z", "op": "Identity", "device": "/device:CPU:1", "inputs": ["y"], "attrs": {"T": {"type": "float"}}}
]})";

TEST_CASE("Tracing Session::Run writes one event per executed node", "[trace]") {
  SessionOptions so;
  so.device_options.num_cpu_devices = 2;
  so.device_options.threads_per_cpu = 2;
  so.default_passes = false;  // constant folding would turn y and z into Consts
  auto created = Session::Create(so);
  REQUIRE(created.ok());
  auto session = std::move(*created);
  REQUIRE(session->Extend(test::ParseGraph(kCrossDevice)).ok());
  test::TempDir dir;
  auto w = TraceWriter::Create(dir.file("run.h5"), TraceMetadata{});
  REQUIRE(w.ok());
  REQUIRE((*w)->AddGraph(session->graph()).ok());
  RunOptions opts;
  opts.trace = true;
  std::vector<std::vector<NodeExecStats>> recorded;
  for (int step = 0; step < 3; ++step) {
    RunMetadata md;
    std::vector<Tensor> out;
    Status s = session->Run(opts, {}, {"z:0"}, {}, &out, &md);
    INFO(s.ToString());
    REQUIRE(s.ok());
    REQUIRE_FALSE(md.step_stats.empty());
    recorded.push_back(md.step_stats);
    REQUIRE((*w)->AddRunMetadata(step, md, /*loss=*/10.0 - step).ok());
  }
  REQUIRE((*w)->Close().ok());

  auto t = TraceReader::Open(dir.file("run.h5"));
  REQUIRE(t.ok());
  size_t expected = 0;
  for (const auto& r : recorded) expected += r.size();
  REQUIRE(t->events.size() == expected);
  // Event i of step k is step_stats[i] of step k, field for field.
  size_t i = 0;
  std::map<std::string, int> kinds;
  for (size_t step = 0; step < recorded.size(); ++step) {
    for (const NodeExecStats& s : recorded[step]) {
      const EventRecord& e = t->events[i++];
      CHECK(e.step == static_cast<int64_t>(step));
      CHECK(t->str(e.node) == s.node_name);
      CHECK(t->str(e.op_type) == s.op);
      CHECK(t->device_name(e.device) == s.device);
      CHECK(e.stream == s.thread_id);
      CHECK(e.start_ns == s.start_ns);
      CHECK(e.end_ns == s.end_ns);
      CHECK(e.end_ns >= e.start_ns);
      kinds[EventKindName(e.kind)]++;
    }
  }
  // x, y, z each ran once per step.
  for (const char* name : {"x", "y", "z"}) {
    int count = 0;
    for (const EventRecord& e : t->events) count += t->str(e.node) == name;
    CHECK(count == 3);
  }
  // Two transfers per step: x to CPU:1, and z back to CPU:0 where fetches are collected.
  CHECK(kinds["send"] == 6);
  CHECK(kinds["recv"] == 6);
  for (const EventRecord& e : t->events)
    if (e.kind == static_cast<int32_t>(EventKind::kRecv)) CHECK(e.bytes == 8);  // 2 floats
  REQUIRE(t->steps.size() == 3);
  CHECK(t->steps[2].loss == 8.0);
  CHECK(t->steps[2].end_ns > t->steps[2].start_ns);
  CHECK(t->memory.size() >= 3);  // a peak per device per step
  CHECK(t->ops.size() == 3);
}

}  // namespace
}  // namespace fb
