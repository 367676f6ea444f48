// Generated platforms (sim/platform_generator.h): the ranks of an MPI job on one machine.
#include "sim/platform_generator.h"

#include <simgrid/s4u.hpp>

#include <fstream>

#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

TEST_CASE("An MPI job on one node: one host per rank, named like the runtime's devices", "[sim]") {
  DeviceClass cpu{"CPU", 1e10, 4e9, 1000, 0};
  auto xml = MpiNodeXml({{"ps", 1}, {"worker", 2}}, cpu);
  INFO(xml.status().ToString());
  REQUIRE(xml.ok());
  fb::test::TempDir dir;
  const std::string path = dir.file("node.xml");
  std::ofstream(path) << *xml;
  Simulation sim;
  REQUIRE(sim.LoadPlatform(path).ok());
  REQUIRE(sim.devices().size() == 3);
  CHECK(sim.devices()[0].desc.name == "/job:ps/replica:0/task:0/device:CPU:0");
  CHECK(sim.devices()[1].desc.name == "/job:worker/replica:0/task:0/device:CPU:0");
  CHECK(sim.devices()[2].desc.name == "/job:worker/replica:0/task:1/device:CPU:0");
  CHECK(sim.devices()[2].desc.peak_flops_per_s == 1e10);
  // Route: the sender's link then the receiver's, 10 us each at 4 GB/s ("shm").
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  sim.devices()[0].host->route_to(sim.devices()[2].host, links, &latency);
  CHECK(links.size() == 2);
  CHECK(latency == Approx(20e-6));
  CHECK(links[0]->get_bandwidth() == Approx(4e9));
}

TEST_CASE("MPI node platforms reject empty jobs and unknown link classes", "[sim]") {
  CHECK(MpiNodeXml({}, DeviceClass{}).status().code() == Code::kInvalidArgument);
  CHECK(MpiNodeXml({{"worker", 0}}, DeviceClass{}).status().code() == Code::kInvalidArgument);
  auto bad = MpiNodeXml({{"worker", 2}}, DeviceClass{}, "carrier-pigeon");
  CHECK_THAT(bad.status().message(), Catch::Contains("carrier-pigeon"));
}

}  // namespace
}  // namespace fb::sim
