// The simulator places a model's step as a Session does: the whole client graph first
// (SimRunOptions::client_graph, engine/runtime/session.cc PlaceLikeFullGraph).
#include "engine/placement/placer.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

// The client graph: an initializer-like node first, then the step's a -> b.
std::string ClientGraph(bool with_init) {
  std::string nodes = with_init ? std::string(R"({"name": "init", "op": "Const", )") +
                                      test::kScalarConst + "},\n"
                                : "";
  return R"({"nodes": [)" + nodes + R"({"name": "a", "op": "Const", )" + test::kScalarConst +
         R"(},
    {"name": "b", "op": "Identity", "inputs": ["a"], "attrs": {"T": {"type": "float"}}}
  ]})";
}

TEST_CASE("round_robin places a step like its client graph when given one", "[sim][placement]") {
  auto client = MakeGraph(ClientGraph(true));
  auto step = MakeGraph(ClientGraph(false));
  Simulation sim;
  REQUIRE(sim.LoadPlatform(PlatformPath("star_4.xml")).ok());
  SimRunOptions o;
  o.workload.placer = "round_robin";
  o.client_graph = client.get();
  auto r = sim.Run(*step, TableCosts({}, {}), o);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // Expected: the client graph placed alone on the same devices, and the step alone differs.
  REQUIRE(PlaceGraph(client.get(), sim.roles().placement_devices, "round_robin").ok());
  REQUIRE(PlaceGraph(step.get(), sim.roles().placement_devices, "round_robin").ok());
  for (const char* name : {"a", "b"}) {
    INFO(name);
    CHECK(sim.placed_graph()->FindNode(name)->assigned_device() ==
          client->FindNode(name)->assigned_device());
  }
  // Without the client graph, "a" takes the first device that "init" takes above.
  CHECK(step->FindNode("a")->assigned_device() == client->FindNode("init")->assigned_device());
  CHECK(step->FindNode("a")->assigned_device() != client->FindNode("a")->assigned_device());
}

}  // namespace
}  // namespace fb::sim
