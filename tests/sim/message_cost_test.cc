// Per-message handling on the receiving host (sim/message_cost.h): the queue by hand, property
// parsing with bad values, and hand-computed null steps whose updates queue at one parameter
// server. Platform: sim/platforms/star_4.xml (h0..h3, a route crosses two 1 ms, 100 MB/s links).
#include "sim/message_cost.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

TEST_CASE("MessageQueues serves a host's messages one at a time in arrival order", "[sim]") {
  MessageCost c{0.010, 1e6};  // 10 ms + 1 us per byte
  MessageQueues q({c, MessageCost{}});
  REQUIRE(q.enabled());
  CHECK(q.Handle(0, 1.0, 0) == Approx(1.010));
  CHECK(q.Handle(0, 1.0, 1000) == Approx(1.021));   // queued behind the first: +10 ms + 1 ms
  CHECK(q.Handle(0, 2.0, 0) == Approx(2.010));      // the queue was idle again
  CHECK(q.Handle(1, 5.0, 1000000) == Approx(5.0));  // a host without a cost: at once
  CHECK_FALSE(MessageQueues({MessageCost{}, MessageCost{}}).enabled());
}

TEST_CASE("MessageQueues: messages arriving together share one wake-up latency", "[sim]") {
  MessageCost c;
  c.overhead_s = 0.001;
  c.latency_s = 0.005;
  MessageQueues q({c});
  // Three messages arrive at 1.0: the handler wakes at 1.005 and handles them 1 ms each.
  CHECK(q.Handle(0, 1.0, 0) == Approx(1.006));
  CHECK(q.Handle(0, 1.0, 0) == Approx(1.007));
  CHECK(q.Handle(0, 1.0, 0) == Approx(1.008));
  CHECK(q.Handle(0, 1.0035, 0) == Approx(1.009));  // the handler is busy: no new wake-up
  CHECK(q.Handle(0, 2.0, 0) == Approx(2.006));     // idle again: wakes 5 ms after arrival
}

TEST_CASE("ParseMessageCost reads ns and bytes per second and refuses bad values by name", "[sim]") {
  auto ok = ParseMessageCost("h7", "150000", "2e9");
  REQUIRE(ok.ok());
  CHECK(ok->overhead_s == Approx(150e-6));
  CHECK(ok->serialize_bytes_per_s == Approx(2e9));
  CHECK(ok->Seconds(2000000) == Approx(150e-6 + 1e-3));
  auto absent = ParseMessageCost("h7", nullptr, nullptr);
  REQUIRE(absent.ok());
  CHECK_FALSE(absent->enabled());
  for (const char* bad : {"-1", "nan", "NaN", "inf", "-inf", "1e400", "1e300", "12abc", "", " "}) {
    INFO(bad);
    auto o = ParseMessageCost("h7", bad, nullptr);
    REQUIRE_FALSE(o.ok());
    CHECK(o.status().code() == Code::kInvalidArgument);
    REQUIRE_THAT(o.status().message(), Catch::Contains("host 'h7'") &&
                                           Catch::Contains("message_overhead_ns") &&
                                           Catch::Contains(std::string("'") + bad + "'"));
    auto s = ParseMessageCost("h7", "1", bad);
    REQUIRE_FALSE(s.ok());
    REQUIRE_THAT(s.status().message(), Catch::Contains("serialize_bytes_per_s"));
    auto l = ParseMessageCost("h7", "1", "1", bad);
    REQUIRE_FALSE(l.ok());
    REQUIRE_THAT(l.status().message(), Catch::Contains("message_latency_ns") &&
                                           Catch::Contains("host 'h7'"));
  }
}

// A platform of two hosts whose first carries `props` (XML <prop> lines).
std::string PlatformWithProps(const std::string& name, const std::string& props) {
  const auto dir = std::filesystem::temp_directory_path() / "fb_message_cost_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <host id="ps0" speed="1Gf">)" << props << R"(</host>
    <host id="w0" speed="1Gf"/>
    <link id="l" bandwidth="100MBps" latency="1ms"/>
    <route src="ps0" dst="w0"><link_ctn id="l"/></route>
  </zone>
</platform>
)";
  return path;
}

TEST_CASE("Platform message properties with bad values give InvalidArgument naming host and property", "[sim]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"message_overhead_ns", "-5"},       {"message_overhead_ns", "nan"},
      {"message_overhead_ns", "1e90"},     {"message_overhead_ns", "fast"},
      {"serialize_bytes_per_s", "-1e9"},   {"serialize_bytes_per_s", "inf"},
      {"serialize_bytes_per_s", "1e300"}, {"message_latency_ns", "-0.5"},
      {"message_latency_ns", "1e99"}};
  int k = 0;
  for (const auto& [prop, value] : cases) {
    INFO(prop << " = " << value);
    const std::string path = PlatformWithProps(
        "bad" + std::to_string(k++) + ".xml", "<prop id=\"" + prop + "\" value=\"" + value + "\"/>");
    const std::string status = test::LoadPlatformInChild(path);
    CHECK_THAT(status, Catch::Contains("INVALID_ARGUMENT") || Catch::Contains("InvalidArgument"));
    CHECK_THAT(status, Catch::Contains("host 'ps0'") && Catch::Contains(prop) &&
                           Catch::Contains(path));
  }
  const std::string good =
      PlatformWithProps("good.xml", R"(<prop id="message_overhead_ns" value="2.5e5"/>)");
  const std::string text = test::TextFromChild([&] {
    Simulation sim;
    if (!sim.LoadPlatform(good).ok()) return std::string("error");
    return std::to_string(sim.devices()[0].message_cost.overhead_s * 1e9) + " " +
           std::to_string(sim.devices()[1].message_cost.enabled());
  });
  CHECK(text == "250000.000000 0");
}

// The scalar null step (4-byte transfers), 4 steps.
StatusOr<SimResult> NullStep(int workers, double overhead_s, bool control_plane) {
  SimRunOptions o;
  o.workload.steps = 4;
  o.control_plane = control_plane;
  o.message_cost = MessageCost{overhead_s, 0};
  return test::RunNullStepInChild(1, workers, o);
}

void CheckSteps(const StatusOr<SimResult>& r, double expected_s) {
  test::CheckStepTimes(r, 4, expected_s);
}

TEST_CASE("N workers' updates queue at one parameter server at its per-message cost", "[sim]") {
  // c = 10 ms per message on every host, route latency L = 2 ms. Each worker gets w at L and
  // handles it (+c), its update reaches the PS at 2L + c, where the N updates are handled one
  // after another: the step is 2L + c + N c.
  CheckSteps(NullStep(1, 0.010, false), 0.004 + 0.010 + 1 * 0.010);  // 24 ms
  CheckSteps(NullStep(3, 0.010, false), 0.004 + 0.010 + 3 * 0.010);  // 44 ms
  // Without a cost: the round trip alone.
  CheckSteps(NullStep(3, 0, false), 0.004);
}

TEST_CASE("With the control plane the PS's host also handles every worker's done reply", "[sim]") {
  // The run request (27 B) reaches each worker with w; both are handled there (2c). The N
  // updates and N done replies reach the master (the PS's host) at 2L + 2c: 2N c more.
  CheckSteps(NullStep(3, 0.010, true), 0.004 + 2 * 0.010 + 2 * 3 * 0.010);  // 84 ms
  // Without a per-message cost the run request travels beside w and the done reply beside the
  // update: no round trip is added to the null step.
  CheckSteps(NullStep(3, 0, true), 0.004);
}

}  // namespace
}  // namespace fb::sim
