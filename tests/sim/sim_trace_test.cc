// Simulated runs write the trace schema of real runs (mode "sim", simulated = 1).
#include "sim/sim_trace.h"

#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_summary.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

TEST_CASE("A simulated run writes an HDF5 trace that TraceReader reads", "[sim]") {
  auto g = test::MakeGraph(std::string(R"({"nodes": [
    {"name": "x", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "y", "op": "Identity", "device": "/device:CPU:1", "inputs": ["x"], "attrs": {"T": {"type": "float"}}}
  ]})");
  Simulation sim;
  REQUIRE(sim.LoadPlatform(test::PlatformPath("two_hosts.xml")).ok());
  SimRunOptions opts;
  opts.record_events = true;
  opts.workload.steps = 2;
  auto r = sim.Run(*g, test::TableCosts({{"x", 0.5}, {"y", 0.25}}, {{"x", 1000000}}), opts);
  REQUIRE(r.ok());
  fb::test::TempDir dir;
  TraceMetadata meta;
  meta.seed = 3;
  Status st = WriteSimTrace(dir.file("sim.h5"), sim, *r, opts, meta);
  INFO(st.ToString());
  REQUIRE(st.ok());
  auto t = TraceReader::Open(dir.file("sim.h5"));
  INFO(t.status().ToString());
  REQUIRE(t.ok());
  CHECK(t->metadata.mode == TraceMode::kSim);
  CHECK(t->metadata.seed == 3);
  REQUIRE(t->events.size() == 8);  // per step: x, _Send, the message, y
  REQUIRE(t->steps.size() == 2);
  CHECK(t->steps[0].start_ns == 0);
  CHECK(t->steps[0].end_ns == 761000000);  // 0.5 + 0.001 + 0.01 + 0.25 s
  CHECK(t->steps[1].end_ns == 1522000000);
  int recvs = 0;
  for (const EventRecord& e : t->events) {
    if (e.kind != static_cast<int32_t>(EventKind::kRecv)) continue;
    ++recvs;
    CHECK(e.bytes == 1000000);
    CHECK(t->device_name(e.peer_device) == "/job:localhost/replica:0/task:0/device:CPU:0");
    CHECK(e.end_ns - e.start_ns == 11000000);  // 1 ms + 1e6 B / 1e8 B/s
  }
  CHECK(recvs == 2);
  TraceSummary summary = SummarizeTrace(*t);
  CHECK(!summary.ops.empty());
}

}  // namespace
}  // namespace fb::sim
