// The master's run requests and done replies over the platform's links (sim/control_plane.h):
// hand-computed steps on sim/platforms/star_4.xml (a route crosses two 1 ms, 100 MB/s links).
#include "sim/control_plane.h"

#include <filesystem>
#include <fstream>

#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

// a (0.5 s) on the master's device (task 0), b (1 s) on task 1: no data between them.
std::string IndependentGraph(const std::string& dev0 = "/job:worker/task:0",
                             const std::string& dev1 = "/job:worker/task:1") {
  return R"({"nodes": [
    {"name": "a", "op": "Const", "device": ")" + dev0 + R"(", )" + test::kScalarConst + R"(},
    {"name": "b", "op": "Const", "device": ")" + dev1 + R"(", )" + test::kScalarConst + R"(}
  ]})";
}

StatusOr<SimResult> RunIndependent(bool control_plane, double overhead_s) {
  return test::RunSimInChild([=]() -> StatusOr<SimResult> {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(IndependentGraph()));
    RETURN_IF_ERROR(g.status());
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(PlatformPath("star_4.xml")));
    SimRunOptions o;
    o.workload.steps = 3;
    o.control_plane = control_plane;
    if (overhead_s > 0) o.message_cost = MessageCost{overhead_s, 0};
    return sim.Run(**g, TableCosts({{"a", 0.5}, {"b", 1.0}}, {}), o);
  });
}

TEST_CASE("Control-plane messages over a link add exactly their round trip to the step", "[sim]") {
  // One way: 2 ms latency + 27 B / 1e8 B/s. b starts when the run request has arrived and the
  // step ends when b's done reply has reached the master: 1 s + 2 one-way trips.
  const double one_way = 0.002 + kRunRequestBytes / 1e8;
  auto off = RunIndependent(false, 0);
  auto on = RunIndependent(true, 0);
  auto costly = RunIndependent(true, 0.010);  // + 10 ms to handle each at its host
  for (const auto* r : {&off, &on, &costly}) {
    INFO(r->status().ToString());
    REQUIRE(r->ok());
    REQUIRE((*r)->step_times_s.size() == 3);
  }
  for (size_t i = 0; i < 3; ++i) {
    CHECK(off->step_times_s[i] == Approx(1.0).margin(1e-9));
    CHECK(on->step_times_s[i] == Approx(1.0 + 2 * one_way).margin(1e-9));
    CHECK(costly->step_times_s[i] == Approx(1.0 + 2 * one_way + 2 * 0.010).margin(1e-9));
  }
}

TEST_CASE("Control plane: one run request and one done reply per remote actor and step", "[sim]") {
  const std::string text = test::TextFromChild([] {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(IndependentGraph()));
    Simulation sim;
    if (!g.ok() || !sim.LoadPlatform(PlatformPath("star_4.xml")).ok()) return std::string("error");
    SimRunOptions o;
    o.workload.steps = 5;
    o.control_plane = true;
    auto r = sim.Run(**g, TableCosts({{"a", 0.5}, {"b", 1.0}}, {}), o);
    if (!r.ok()) return r.status().ToString();
    int64_t link_total = 0;
    for (const auto& [link, bytes] : r->link_bytes) link_total += bytes;
    return std::to_string(r->control_messages) + " " + std::to_string(link_total);
  });
  // a runs on the master's host: nothing to send for it. b: 5 run requests and 5 done replies,
  // each over two links.
  CHECK(text == std::to_string(2 * 5) + " " +
                    std::to_string(5 * 2 * (kRunRequestBytes + kDoneReplyBytes)));
}

TEST_CASE("Control plane in a sync run: the next step's run requests wait for the whole step", "[sim]") {
  // Worker compute 1 s, 3 replicas, 1 PS, sync, no data on the wire but w (4 B) and the update.
  const char* graph = R"({"nodes": [
    {"name": "w", "op": "Variable", "device": "/job:ps/task:0", "attrs": {"shape": {"shape": [1]}, "dtype": {"type": "float"}}},
    {"name": "g", "op": "Identity", "device": "/job:worker", "inputs": ["w"], "attrs": {"T": {"type": "float"}}},
    {"name": "apply", "op": "AssignAdd", "device": "/job:ps/task:0", "inputs": ["w", "g"], "attrs": {"T": {"type": "float"}}}
  ]})";
  auto run = [&](bool cp) {
    return test::RunSimInChild([=]() -> StatusOr<SimResult> {
      auto gr = Graph::FromGraphDef(fb::test::ParseGraph(graph));
      RETURN_IF_ERROR(gr.status());
      Simulation sim;
      RETURN_IF_ERROR(sim.LoadPlatform(PlatformPath("star_4.xml")));
      SimRunOptions o;
      o.workload.ps = 1;
      o.workload.replicas = 3;
      o.workload.steps = 3;
      o.control_plane = cp;
      return sim.Run(**gr, TableCosts({{"g", 1.0}}, {{"w", 4}, {"g", 4}}), o);
    });
  };
  auto off = run(false), on = run(true);
  REQUIRE(off.ok());
  REQUIRE(on.ok());
  // Both: w out (2 ms), g (1 s), update back (2 ms). The done replies travel beside the updates,
  // and the run requests beside w: the same step.
  for (double t : off->step_times_s) CHECK(t == Approx(1.004).margin(1e-6));
  for (double t : on->step_times_s) CHECK(t == Approx(1.004).margin(1e-6));
}

TEST_CASE("Control plane: no route between the master and a host is an error naming both", "[sim]") {
  const auto dir = std::filesystem::temp_directory_path() / "fb_control_plane_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "no_route.xml").string();
  std::ofstream(path) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <host id="m" speed="1Gf"/>
    <host id="far" speed="1Gf"/>
  </zone>
</platform>
)";
  const std::string status = test::StatusInChild([&] {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(IndependentGraph()));
    if (!g.ok()) return g.status();
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(path));
    SimRunOptions o;
    o.control_plane = true;
    return sim.Run(**g, TableCosts({{"a", 0.5}, {"b", 1.0}}, {}), o).status();
  });
  CHECK_THAT(status, Catch::Contains("no route from host '") && Catch::Contains("'m'") &&
                         Catch::Contains("'far'") && Catch::Contains(path) &&
                         Catch::Contains("run requests"));
}

}  // namespace
}  // namespace fb::sim
