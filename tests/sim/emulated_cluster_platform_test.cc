// The SimGrid platform of an emulated cluster (sim/emulated_cluster_platform.h, issue 18):
// `flowbench sim-platform emulated:N:RATE:DELAY[:topology]`.
#include "sim/emulated_cluster_platform.h"

#include <simgrid/s4u.hpp>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>
#include <nlohmann/json.hpp>

#include "sim/platform_validation.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

const DeviceClass kCpu{"CPU", 1e10, 4e9, 1000, 0};

// Loads `xml` in a child process (SimGrid allows one engine per process) and describes the
// route from device `a` to device `b`: device count, names of a and b, link count, latency,
// the first link's bandwidth, and whether the first link of b -> a is the last of a -> b.
nlohmann::json DescribeRoute(const std::string& xml, int a, int b) {
  fb::test::TempDir dir;
  const std::string path = dir.file("emulated.xml");
  std::ofstream(path) << xml;
  return nlohmann::json::parse(test::TextFromChild([&] {
    Simulation sim;
    if (Status s = sim.LoadPlatform(path); !s.ok()) return nlohmann::json{{"error", s.ToString()}}.dump();
    std::vector<simgrid::s4u::Link*> there, back;
    double latency = 0, back_latency = 0;
    const auto& d = sim.devices();
    d[a].host->route_to(d[b].host, there, &latency);
    d[b].host->route_to(d[a].host, back, &back_latency);
    return nlohmann::json{{"devices", d.size()}, {"name_a", d[a].desc.name},
                          {"name_b", d[b].desc.name}, {"links", there.size()},
                          {"latency_s", latency}, {"bandwidth", there[0]->get_bandwidth()},
                          {"shared_back", back[0] == there.back()}}
        .dump();
  }));
}

TEST_CASE("Emulated cluster platform: star, one host per rank, 2 x delay one way", "[sim][cluster]") {
  EmulatedClusterSpec spec{4, 1e9, 50e-6, "star", {}};
  auto xml = EmulatedClusterXml(spec, kCpu);
  INFO(xml.status().ToString());
  REQUIRE(xml.ok());
  REQUIRE(ValidatePlatformXml(*xml, "emulated.xml").ok());
  const nlohmann::json r = DescribeRoute(*xml, 1, 3);
  INFO(r.dump());
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["devices"] == 4);
  CHECK(r["name_a"] == "/job:worker/replica:0/task:0/device:CPU:0");
  CHECK(r["name_b"] == "/job:worker/replica:0/task:2/device:CPU:0");
  CHECK(r["links"] == 2);
  CHECK(r["latency_s"].get<double>() == Approx(2 * (50e-6 + kEmulatedStackLatencyS)));
  CHECK(r["bandwidth"].get<double>() == Approx(1e9 / 8 * kEmulatedTcpGoodputFraction));
  // Each direction of a cable is a link of its own: a -> b and b -> a do not share one.
  CHECK(r["shared_back"] == false);
}

// The links carry what TCP over 1514-byte Ethernet frames delivers of the configured rate, as
// measured at 20 and 100 Mbit/s between emulated hosts (2.4 and 11.9-12.0 MB/s, docs/cluster.md).
TEST_CASE("Emulated cluster platform: links carry TCP's goodput of the configured rate",
          "[sim][cluster]") {
  EmulatedClusterSpec spec{2, 100e6, 1e-3, "star", {}};
  auto xml = EmulatedClusterXml(spec, kCpu);
  INFO(xml.status().ToString());
  REQUIRE(xml.ok());
  const nlohmann::json r = DescribeRoute(*xml, 0, 1);
  INFO(r.dump());
  REQUIRE_FALSE(r.contains("error"));
  CHECK(r["bandwidth"].get<double>() == Approx(100e6 / 8 * 1448 / 1514));
  CHECK(r["bandwidth"].get<double>() > 11.9e6);
}

TEST_CASE("Emulated cluster platform: two-level routes between racks cross both uplinks",
          "[sim][cluster]") {
  EmulatedClusterSpec spec{5, 10e9, 1e-3, "two-level", {{"worker", 5}}};
  auto xml = EmulatedClusterXml(spec, kCpu);
  INFO(xml.status().ToString());
  REQUIRE(xml.ok());
  const nlohmann::json same_rack = DescribeRoute(*xml, 0, 1), across = DescribeRoute(*xml, 0, 4);
  INFO(same_rack.dump() << " " << across.dump());
  REQUIRE_FALSE(same_rack.contains("error"));
  REQUIRE_FALSE(across.contains("error"));
  CHECK(same_rack["links"] == 2);
  CHECK(across["links"] == 4);
  CHECK(across["latency_s"].get<double>() - same_rack["latency_s"].get<double>() ==
        Approx(2e-3));
}

TEST_CASE("Emulated cluster platform: bad host counts, rates, delays, topologies and jobs",
          "[sim][cluster]") {
  auto message = [](const EmulatedClusterSpec& spec) {
    return EmulatedClusterXml(spec, kCpu).status().message();
  };
  CHECK_THAT(message({1, 1e9, 0, "star", {}}), Catch::Contains("2 to 256 hosts, got 1"));
  CHECK_THAT(message({2, 0, 0, "star", {}}), Catch::Contains("rate must be finite and > 0"));
  CHECK_THAT(message({2, 1e9, -1, "star", {}}), Catch::Contains("delay must be finite and >= 0"));
  CHECK_THAT(message({2, 1e9, 0, "ring", {}}), Catch::Contains("star or two-level, got 'ring'"));
  CHECK_THAT(message({3, 1e9, 0, "star", {{"ps", 1}, {"worker", 1}}}),
             Catch::Contains("the jobs have 2 tasks, the cluster 3 hosts"));
  CHECK_THAT(message({2, 1e9, 0, "star", {{"a<b", 2}}}), Catch::Contains("must be a word"));
}

TEST_CASE("tc rates and delays parse like scripts/cluster writes them", "[sim][cluster]") {
  CHECK(*ParseTcRateBitsPerS("1gbit") == Approx(1e9));
  CHECK(*ParseTcRateBitsPerS("2.5gbit") == Approx(2.5e9));
  CHECK(*ParseTcRateBitsPerS("100mbit") == Approx(1e8));
  CHECK(*ParseTcDelayS("50us") == Approx(50e-6));
  CHECK(*ParseTcDelayS("5ms") == Approx(5e-3));
  CHECK(*ParseTcDelayS("0us") == 0);
  for (const char* bad : {"", "fast", "1gb", "-1gbit", "0gbit", "nangbit", "gbit"}) {
    INFO(bad);
    CHECK_THAT(ParseTcRateBitsPerS(bad).status().message(),
               Catch::Contains("the rate must be") && Catch::Contains(std::string("'") + bad + "'"));
  }
  for (const char* bad : {"5", "5 ms", "-5ms", "infms", "ms"}) {
    INFO(bad);
    CHECK_THAT(ParseTcDelayS(bad).status().message(),
               Catch::Contains("the delay must be like 50us, 5ms or 0.1s, got '"));
  }
}

}  // namespace
}  // namespace fb::sim

namespace fb::sim {
namespace {

TEST_CASE("flowbench sim-platform emulated names the bad field and writes nothing",
          "[sim][cluster][apps]") {
  fb::test::TempDir dir;
  const std::string out = dir.file("p.xml"), err = dir.file("err.txt");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"emulated:4:1gbit", "expected emulated:N:RATE:DELAY"},
      {"emulated:x:1gbit:50us", "the host count must be an integer, got 'x'"},
      {"emulated:1:1gbit:50us", "2 to 256 hosts, got 1"},
      {"emulated:4:fast:50us", "the rate must be like 1gbit, 100mbit or 10gbit, got 'fast'"},
      {"emulated:4:1gbit:50", "the delay must be like 50us, 5ms or 0.1s, got '50'"},
      {"emulated:4:1gbit:50us:ring", "star or two-level, got 'ring'"},
      {"emulated:4:1gbit:50us:star:ps=1,worker=2", "the jobs have 3 tasks, the cluster 4 hosts"},
  };
  for (const auto& [spec, expected] : bad) {
    const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim-platform '" + spec +
                            "' " + out + " > /dev/null 2> " + err;
    const int status = std::system(cmd.c_str());
    std::ifstream in(err);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    INFO(spec << ": " << text);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) != 0);
    CHECK_THAT(text, Catch::Contains("platform spec '" + spec + "'") && Catch::Contains(expected));
    CHECK_FALSE(std::filesystem::exists(out));
  }
  const std::string ok = std::string(FB_BINARY_DIR) + "/flowbench sim-platform " +
                         "emulated:4:10gbit:1ms:two-level " + out + " 2> " + err;
  CHECK(std::system(ok.c_str()) == 0);
  CHECK(std::filesystem::exists(out));
}

}  // namespace
}  // namespace fb::sim
