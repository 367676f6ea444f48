#include "engine/trace/trace_writer.h"

#include <cmath>
#include <filesystem>

#include <catch2/catch.hpp>

#include "engine/graph/graph.h"
#include "engine/trace/trace_reader.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb {
namespace {

const char* kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";
const char* kCpu1 = "/job:localhost/replica:0/task:0/device:CPU:1";

const char* kTwoNodes = R"({"nodes": [
  {"name": "a", "op": "Const", "device": "/device:CPU:0",
   "attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [1]}}, "dtype": {"type": "float"}}},
  {"name": "b", "op": "Identity", "inputs": ["a", "^a"], "attrs": {"T": {"type": "float"}}}
]})";

TraceMetadata Meta() {
  TraceMetadata m;
  m.mode = TraceMode::kSim;
  m.seed = 42;
  m.git_revision = "abc123";
  m.command_line = "flowbench sim --config x.json";
  m.host = "node17";
  m.config_json = R"({"model": "mlp"})";
  return m;
}

TEST_CASE("Trace round trip keeps every attribute, table and field", "[trace]") {
  test::TempDir dir;
  const std::string path = dir.file("t.h5");
  auto w = TraceWriter::Create(path, Meta());
  REQUIRE(w.ok());
  auto g = Graph::FromGraphDef(test::ParseGraph(kTwoNodes));
  REQUIRE(g.ok());
  REQUIRE((*w)->AddGraph(**g, [](const Edge&) { return int64_t{4}; }).ok());
  NodeExecStats send{"send_a", "_Send", kCpu0, 77, 1000, 1500, 0, 9, kCpu1, 4};
  NodeExecStats mm{"mm", "MatMul", kCpu1, 78, 1200, 2200, 64, 9};
  StepTotals totals;
  totals.rank = 3;
  totals.loss = 0.25;
  totals.peak_bytes = {{kCpu0, 4096}};
  REQUIRE((*w)->AddStep(5, {send, mm}, totals).ok());
  REQUIRE((*w)->AddEvent({EventKind::kMemcpy, 1, "/device:GPU:0", 2, 6, "copy", "MemcpyHtoD", 3000,
                          3100, 512, kCpu0})
              .ok());
  REQUIRE((*w)->AddMetric(5, "accuracy", 0.9).ok());
  CHECK((*w)->num_events() == 3);
  // Until Close, only the temporary file exists.
  CHECK(std::filesystem::exists(path + ".tmp"));
  CHECK_FALSE(std::filesystem::exists(path));
  REQUIRE((*w)->Close().ok());
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));

  auto t = TraceReader::Open(path);
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  CHECK(t->schema_version == kTraceSchemaVersion);
  CHECK(t->clock == "ns");
  CHECK(t->metadata.mode == TraceMode::kSim);
  CHECK(t->metadata.seed == 42);
  CHECK(t->metadata.git_revision == "abc123");
  CHECK(t->metadata.command_line == "flowbench sim --config x.json");
  CHECK(t->metadata.host == "node17");
  CHECK(t->metadata.config_json == R"({"model": "mlp"})");

  // Devices in order of first use: the Const's requested device, then CPU:0, CPU:1, GPU:0.
  REQUIRE(t->devices.size() == 4);
  CHECK(t->device_name(0) == "/device:CPU:0");
  CHECK(t->device_name(1) == kCpu0);
  CHECK(t->device_name(2) == kCpu1);
  CHECK(t->device_name(3) == "/device:GPU:0");
  CHECK(t->str(t->devices[1].type) == "CPU");
  CHECK(t->str(t->devices[3].type) == "GPU");

  REQUIRE(t->ops.size() == 2);
  CHECK(t->str(t->ops[0].node) == "a");
  CHECK(t->str(t->ops[0].op_type) == "Const");
  CHECK(t->ops[0].device == 0);
  CHECK(t->str(t->ops[1].node) == "b");
  CHECK(t->ops[1].device == -1);
  REQUIRE(t->edges.size() == 2);
  const EdgeRecord& data = t->edges[0].src_output == 0 ? t->edges[0] : t->edges[1];
  const EdgeRecord& control = t->edges[0].src_output == 0 ? t->edges[1] : t->edges[0];
  CHECK(data.src == t->ops[0].id);
  CHECK(data.dst == t->ops[1].id);
  CHECK(data.dst_input == 0);
  CHECK(data.bytes == 4);
  CHECK(control.src_output == -1);
  CHECK(control.dst_input == -1);
  CHECK(control.bytes == 0);

  REQUIRE(t->events.size() == 3);
  const EventRecord& e0 = t->events[0];
  CHECK(e0.kind == static_cast<int32_t>(EventKind::kSend));
  CHECK(e0.rank == 3);
  CHECK(t->device_name(e0.device) == kCpu0);
  CHECK(e0.stream == 77);
  CHECK(e0.step == 5);
  CHECK(t->str(e0.node) == "send_a");
  CHECK(e0.start_ns == 1000);
  CHECK(e0.end_ns == 1500);
  CHECK(e0.bytes == 4);
  CHECK(t->device_name(e0.peer_device) == kCpu1);
  CHECK(t->str(e0.op_type) == "_Send");
  const EventRecord& e1 = t->events[1];
  CHECK(e1.kind == static_cast<int32_t>(EventKind::kCompute));
  CHECK(e1.bytes == 64);
  CHECK(e1.peer_device == -1);
  const EventRecord& e2 = t->events[2];
  CHECK(e2.kind == static_cast<int32_t>(EventKind::kMemcpy));
  CHECK(e2.rank == 1);
  CHECK(e2.step == 6);
  CHECK(t->str(e2.op_type) == "MemcpyHtoD");

  // Step times derived from the events when not given: first start, last end.
  REQUIRE(t->steps.size() == 1);
  CHECK(t->steps[0].step == 5);
  CHECK(t->steps[0].rank == 3);
  CHECK(t->steps[0].start_ns == 1000);
  CHECK(t->steps[0].end_ns == 2200);
  CHECK(t->steps[0].loss == 0.25);
  REQUIRE(t->memory.size() == 1);
  CHECK(t->memory[0].step == 5);
  CHECK(t->device_name(t->memory[0].device) == kCpu0);
  CHECK(t->memory[0].peak_bytes == 4096);
  REQUIRE(t->metrics.size() == 1);
  CHECK(t->metrics[0].step == 5);
  CHECK(t->str(t->metrics[0].name) == "accuracy");
  CHECK(t->metrics[0].value == 0.9);
}

TEST_CASE("Trace writer appends more events than one chunk and marks unknown loss NaN",
          "[trace]") {
  test::TempDir dir;
  auto w = TraceWriter::Create(dir.file("big.h5"), TraceMetadata{});
  REQUIRE(w.ok());
  const int n = 40000;  // more than two flushes of the event buffer
  for (int step = 0; step < 2; ++step) {
    std::vector<NodeExecStats> stats;
    for (int i = 0; i < n / 2; ++i)
      stats.push_back({"n" + std::to_string(i % 7), "Add", kCpu0, 1, i * 10, i * 10 + 5, 4, 0});
    REQUIRE((*w)->AddStep(step, stats).ok());
  }
  REQUIRE((*w)->Close().ok());
  auto t = TraceReader::Open(dir.file("big.h5"));
  REQUIRE(t.ok());
  REQUIRE(t->events.size() == static_cast<size_t>(n));
  CHECK(t->events[n - 1].step == 1);
  CHECK(t->events[n - 1].start_ns == (n / 2 - 1) * 10);
  // "" (git_revision, command_line, host), "{}" (config), n0..n6, "Add", the device name and its
  // type "CPU"
  CHECK(t->strings.size() == 12);
  REQUIRE(t->steps.size() == 2);
  CHECK(std::isnan(t->steps[0].loss));
  CHECK(t->metadata.mode == TraceMode::kReal);
  CHECK(t->ops.empty());
}

TEST_CASE("Trace writer errors name the file", "[trace][errors]") {
  test::TempDir dir;
  auto bad = TraceWriter::Create(dir.file("no/such/dir/t.h5"), TraceMetadata{});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("no/such/dir/t.h5.tmp"));
  CHECK_THAT(bad.status().message(), Catch::Contains("cannot create trace file"));

  auto w = TraceWriter::Create(dir.file("t.h5"), TraceMetadata{});
  REQUIRE(w.ok());
  auto g = Graph::FromGraphDef(test::ParseGraph(kTwoNodes));
  REQUIRE((*w)->AddGraph(**g).ok());
  Status again = (*w)->AddGraph(**g);
  CHECK(again.code() == Code::kAlreadyExists);
  CHECK_THAT(again.message(), Catch::Contains("t.h5: the graph was already added"));
  REQUIRE((*w)->Close().ok());
  Status late = (*w)->AddMetric(1, "loss", 1.0);
  CHECK(late.code() == Code::kFailedPrecondition);
  CHECK_THAT(late.message(), Catch::Contains("t.h5: trace writer is closed"));
}

TEST_CASE("A trace writer destroyed without Close still produces a complete file", "[trace]") {
  test::TempDir dir;
  {
    auto w = TraceWriter::Create(dir.file("t.h5"), TraceMetadata{});
    REQUIRE(w.ok());
    REQUIRE((*w)->AddMetric(0, "loss", 2.0).ok());
  }
  auto t = TraceReader::Open(dir.file("t.h5"));
  REQUIRE(t.ok());
  REQUIRE(t->metrics.size() == 1);
  CHECK(t->metrics[0].value == 2.0);
}

TEST_CASE("DefaultTraceMetadata fills host and command line", "[trace]") {
  const char* argv[] = {"flowbench", "train", "--steps", "3"};
  TraceMetadata m = DefaultTraceMetadata(TraceMode::kSim, 4, argv);
  CHECK(m.mode == TraceMode::kSim);
  CHECK(m.command_line == "flowbench train --steps 3");
  CHECK_FALSE(m.host.empty());
  CHECK(m.config_json == "{}");
}

}  // namespace
}  // namespace fb
