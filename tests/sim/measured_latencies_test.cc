// The measured cost model's latencies (sim/measured_latencies.h), TypicalSteps
// (engine/trace/trace_summary.h) and how the replay uses them (sim/device_actor.cc), with
// hand-computed values.
#include "sim/measured_latencies.h"

#include "engine/trace/trace_summary.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

// ps (device 0) sends "k" to the worker (device 1) in two steps of 1 ms; times in us from each
// step's start (the step starts at step * 10 ms).
Trace TwoRankTrace() {
  Trace t;
  t.schema_version = kTraceSchemaVersion;
  t.strings = {"/job:ps/replica:0/task:0/device:CPU:0", "CPU",
               "/job:worker/replica:0/task:0/device:CPU:0", "k/send", "k/recv", "b", "_Send",
               "_Recv", "Relu"};
  t.devices = {{0, 0, 1}, {1, 2, 1}};
  auto ev = [&](EventKind kind, int32_t device, int64_t step, int32_t node, int32_t op,
                int64_t start_us, int64_t end_us) {
    EventRecord e;
    e.kind = static_cast<int32_t>(kind);
    e.rank = device;
    e.device = device;
    e.step = step;
    e.node = node;
    e.op_type = op;
    e.start_ns = (step * 10'000 + start_us) * 1000;
    e.end_ns = (step * 10'000 + end_us) * 1000;
    t.events.push_back(e);
  };
  for (int64_t step : {0, 1}) {
    const int64_t late = step * 200;  // step 1's message arrives 200 us later
    ev(EventKind::kSend, 0, step, 3, 6, 100, 110);
    ev(EventKind::kRecv, 1, step, 4, 7, 50, 400 + late);
    ev(EventKind::kCompute, 1, step, 5, 8, 400 + late, 900);
    t.steps.push_back({step, 0, step * 10'000'000, step * 10'000'000 + 1'000'000, 0});
  }
  return t;
}

TEST_CASE("Transfer deliveries and control-plane latencies are means over the steps", "[sim]") {
  const MeasuredLatencies m = MeasureLatencies(TwoRankTrace());
  // Receive end - send start: 300 us and 500 us.
  REQUIRE(m.transfer_s.size() == 1);
  CHECK(m.transfer_s.at("k/send") == Approx(400e-6));
  const std::string ps = "/job:ps/replica:0/task:0/device:CPU:0";
  const std::string worker = "/job:worker/replica:0/task:0/device:CPU:0";
  CHECK(m.dispatch_s.at(ps) == Approx(100e-6));      // first event at 100 us
  CHECK(m.dispatch_s.at(worker) == Approx(50e-6));   // the recv is posted at 50 us
  CHECK(m.completion_s.at(ps) == Approx(890e-6));    // last event ends at 110 us of 1000
  CHECK(m.completion_s.at(worker) == Approx(100e-6));
  // Only step 1.
  const std::set<int64_t> one = {1};
  CHECK(MeasureLatencies(TwoRankTrace(), &one).transfer_s.at("k/send") == Approx(500e-6));
}

TEST_CASE("TypicalSteps keeps the steps around the median step time", "[sim]") {
  Trace t;
  // Step s lasts (10 - s) ms: step 9 is the fastest.
  for (int64_t s = 0; s < 10; ++s) t.steps.push_back({s, 0, 0, (10 - s) * 1'000'000, 0});
  // Sorted durations 1..10 ms; the 40th-60th percentile band is the 5th and 6th (steps 5, 4).
  CHECK(TypicalSteps(t) == std::set<int64_t>{4, 5});
  CHECK(TypicalSteps(t, 1.0).size() == 10);
  CHECK(TypicalSteps(t, 0.0) == std::set<int64_t>{4});  // at least the median step
  CHECK(TypicalSteps(Trace()).empty());
}

// x (CPU:0) -> y (CPU:1) over the 100 MB/s, 1 ms link of two_hosts.xml.
TEST_CASE("Measured deliveries and control-plane latencies lengthen the replayed step", "[sim]") {
  auto g = test::MakeGraph(std::string(R"({"nodes": [
    {"name": "x", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "y", "op": "Identity", "device": "/device:CPU:1", "inputs": ["x"], "attrs": {"T": {"type": "float"}}}
  ]})");
  SimCosts costs = test::TableCosts({{"x", 0.5}, {"y", 0.25}}, {{"x", 1000000}});
  costs.transfer_s = [](const std::string& send) { return send.empty() ? -1.0 : 0.5; };
  costs.dispatch_s = [](const std::string& d) { return d.find("CPU:0") != std::string::npos ? 0.2 : 0.0; };
  costs.completion_s = [](const std::string& d) { return d.find("CPU:1") != std::string::npos ? 0.05 : -1.0; };
  Simulation sim;
  REQUIRE(sim.LoadPlatform(test::PlatformPath("two_hosts.xml")).ok());
  auto r = sim.Run(*g, costs, SimRunOptions());
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // 0.2 s dispatch + 0.5 s (x) + 0.5 s measured delivery (instead of 0.011 s) + 0.25 s (y)
  // + 0.05 s completion.
  REQUIRE(r->step_times_s.size() == 1);
  CHECK(r->step_times_s[0] == Approx(1.5).epsilon(1e-9));
}

}  // namespace
}  // namespace fb::sim
