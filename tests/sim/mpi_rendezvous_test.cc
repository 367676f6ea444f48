// MPI's rendezvous for the tensor transfers of the parameter-server modes (sim/mpi_protocol.h):
// a hand-computed sync step on a toy 2-host platform with one message above and one below the
// eager limit; which limit a route gets (link property, --mpi-eager-limit); bad values by name.
#include "sim/mpi_protocol.h"

#include <filesystem>
#include <fstream>
#include <optional>

#include "sim/emulated_cluster_platform.h"
#include "sim/platform_generator.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

// ps0 and w0 joined by one full-duplex cable of 100 MB/s and 1 ms per direction (route latency
// alpha = 1 ms, B = 1e8 B/s); `link_props`: <prop> lines of the cable.
std::string TwoHosts(const std::string& name, const std::string& link_props) {
  const auto dir = std::filesystem::temp_directory_path() / "fb_mpi_rendezvous_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <host id="ps0" speed="1Gf"/>
    <host id="w0" speed="1Gf"/>
    <link id="cable" bandwidth="100MBps" latency="1ms" sharing_policy="SPLITDUPLEX">)"
                      << link_props << R"(</link>
    <route src="ps0" dst="w0" symmetrical="NO"><link_ctn id="cable" direction="UP"/></route>
    <route src="w0" dst="ps0" symmetrical="NO"><link_ctn id="cable" direction="DOWN"/></route>
  </zone>
</platform>
)";
  return path;
}

// A sync step with two parameters on the PS: big (400,000 bytes, above the 64 KiB limit) and
// small (4,000 bytes, below it). The worker returns each as its update (no compute), which the
// PS adds.
const char* kTwoParameterStep = R"({"nodes": [
  {"name": "big", "op": "Variable", "device": "/job:ps/task:0", "attrs": {"shape": {"shape": [100000]}, "dtype": {"type": "float"}}},
  {"name": "small", "op": "Variable", "device": "/job:ps/task:0", "attrs": {"shape": {"shape": [1000]}, "dtype": {"type": "float"}}},
  {"name": "ubig", "op": "Identity", "device": "/job:worker", "inputs": ["big"], "attrs": {"T": {"type": "float"}}},
  {"name": "usmall", "op": "Identity", "device": "/job:worker", "inputs": ["small"], "attrs": {"T": {"type": "float"}}},
  {"name": "abig", "op": "AssignAdd", "device": "/job:ps/task:0", "inputs": ["big", "ubig"], "attrs": {"T": {"type": "float"}}},
  {"name": "asmall", "op": "AssignAdd", "device": "/job:ps/task:0", "inputs": ["small", "usmall"], "attrs": {"T": {"type": "float"}}}
]})";

StatusOr<SimResult> Step(const std::string& platform, std::optional<int64_t> eager_limit) {
  return test::RunSimInChild([=]() -> StatusOr<SimResult> {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(kTwoParameterStep));
    RETURN_IF_ERROR(g.status());
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(platform));
    SimRunOptions o;
    o.workload.ps = 1;
    o.workload.replicas = 1;
    o.workload.steps = 3;
    if (eager_limit) o.workload.mpi_eager_limit_bytes = *eager_limit;
    return sim.Run(**g,
                   test::TableCosts({}, {{"big", 400000}, {"ubig", 400000}, {"small", 4000},
                                         {"usmall", 4000}}),
                   o);
  });
}

void CheckSteps(const StatusOr<SimResult>& r, double expected_s) {
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->step_times_s.size() == 3);
  for (double t : r->step_times_s) CHECK(t == Approx(expected_s).margin(1e-7));
  CHECK(r->transfers == 3 * 4);  // the rendezvous adds no transfer
  CHECK(r->wire_bytes == 3 * 2 * 404000);
}

// Without the rendezvous: big and small leave together (1 ms), share the cable while small's
// 4,000 bytes last (80 us at 50 MB/s each), then big alone: 1 ms + 404,000 B / B = 5.04 ms. The
// update ubig goes back alone: 1 ms + 4 ms. The small update is back long before. 10.04 ms.
constexpr double kEagerStepS = 0.00504 + 0.005;
// With it, big sends its first 65,480 bytes (the limit less ob1's header; done at 1 ms + (65,480
// + 4,000) B / B = 1.6948 ms; small, below the limit, is unchanged), waits for w0's
// acknowledgement (1 ms), then sends the other 334,520 bytes (1 ms + 3.3452 ms): 3 alpha +
// 4.04 ms = 7.04 ms. The update: 3 alpha + 4 ms =
// 7 ms. One round trip (2 alpha = 2 ms) more per large message: 14.04 ms.
constexpr double kRendezvousStepS = 0.00704 + 0.007;

TEST_CASE("Rendezvous: a sync step pays one round trip per message above the link's eager limit", "[sim][rendezvous]") {
  const std::string tcp =
      TwoHosts("tcp.xml", R"(<prop id="mpi_eager_limit" value="65536"/>)");
  CheckSteps(Step(tcp, std::nullopt), kRendezvousStepS);  // --mpi-eager-limit platform
  CheckSteps(Step(tcp, 0), kEagerStepS);                  // --mpi-eager-limit 0: none
  // A limit (header included, mpi_protocol.h) that big's 400,000 bytes fit: both eager.
  CheckSteps(Step(tcp, 400000 + kOb1HeaderBytes), kEagerStepS);
  // One byte less: big's first part is 399,999 bytes, the last byte follows the acknowledgement,
  // so the same 2 alpha more: 14.04 ms. (A limit of exactly 400,000 bytes is also a rendezvous.)
  CheckSteps(Step(tcp, 400000 + kOb1HeaderBytes - 1), kRendezvousStepS);
  CheckSteps(Step(tcp, 400000), kRendezvousStepS);
}

TEST_CASE("Rendezvous: links without mpi_eager_limit carry tensor transfers eagerly unless the flag says otherwise", "[sim][rendezvous]") {
  const std::string plain = TwoHosts("plain.xml", "");
  CheckSteps(Step(plain, std::nullopt), kEagerStepS);  // not an MPI link: gRPC as well
  CheckSteps(Step(plain, kOpenMpiTcpEagerLimit), kRendezvousStepS);
  // Shared memory (vader's single-copy reads): no round trip before the data.
  const std::string shm = TwoHosts("shm.xml", R"(<prop id="mpi_eager_limit" value="0"/>)");
  CheckSteps(Step(shm, std::nullopt), kEagerStepS);
}

TEST_CASE("Rendezvous: generated platforms declare the eager limit of shared memory only", "[sim][rendezvous]") {
  auto emulated = EmulatedClusterXml(EmulatedClusterSpec{2, 100e6, 1e-3}, DeviceClass{});
  INFO(emulated.status().ToString());
  REQUIRE(emulated.ok());
  // No property: tensor transfers without the round trip, which the recorded cases do not show.
  CHECK_THAT(*emulated, !Catch::Contains("mpi_eager_limit"));
  auto node = MpiNodeXml({{"ps", 1}, {"worker", 1}}, DeviceClass{});
  REQUIRE(node.ok());
  CHECK_THAT(*node, Catch::Contains(R"(<prop id="mpi_eager_limit" value="0"/>)"));
  auto pcie = MpiNodeXml({{"ps", 1}, {"worker", 1}}, DeviceClass{}, "10gbe");
  REQUIRE(pcie.ok());
  CHECK_THAT(*pcie, !Catch::Contains("mpi_eager_limit"));
}

TEST_CASE("Rendezvous: bad eager limits name the link property or the flag", "[sim][rendezvous]") {
  int k = 0;
  for (const char* value : {"-5", "64k", "", "1e5", "99999999999999999999", "1099511627777"}) {
    INFO("value '" << value << "'");
    const std::string path =
        TwoHosts("bad" + std::to_string(k++) + ".xml",
                 std::string(R"(<prop id="mpi_eager_limit" value=")") + value + "\"/>");
    const std::string status = test::LoadPlatformInChild(path);
    CHECK_THAT(status, Catch::Contains("link 'cable'") && Catch::Contains("mpi_eager_limit") &&
                           Catch::Contains(path) && Catch::Contains(std::string("'") + value + "'"));
  }
  CHECK(ParseLinkEagerLimit("l", "1099511627776").value() == kMaxEagerLimitBytes);
  CHECK(ParseLinkEagerLimit("l", nullptr).value() == -1);
  for (const char* text : {"-1", "auto", "64KiB", "", "1099511627777"}) {
    INFO("flag '" << text << "'");
    auto v = ParseEagerLimitFlag(text);
    REQUIRE_FALSE(v.ok());
    CHECK_THAT(v.status().message(), Catch::Contains("--mpi-eager-limit") &&
                                         Catch::Contains(std::string("'") + text + "'"));
  }
  CHECK(ParseEagerLimitFlag("platform").value() == kEagerLimitFromPlatform);
  CHECK(ParseEagerLimitFlag("0").value() == 0);
  CHECK(ParseEagerLimitFlag("65536").value() == 65536);
  Status bad = CheckEagerLimitFlag(-7);
  CHECK_THAT(bad.message(), Catch::Contains("--mpi-eager-limit") && Catch::Contains("got -7"));
}

}  // namespace
}  // namespace fb::sim
