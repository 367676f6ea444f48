// Platform validation (sim/platform_validation.h): bad SimGrid platforms give a Status naming
// the file and the element, where SimGrid 3.32 alone aborts, crashes or says "input in flex
// scanner failed". Loads run in child processes: without validation SimGrid kills the process.
#include "sim/platform_validation.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

#include "sim/platform_generator.h"
#include "sim/platform_units.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

std::string BadPlatform(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/tests/data/bad/platform_" + name + ".xml";
}

// A platform of `depth` nested Full zones z0, z1, ... with two routed hosts in the innermost.
std::string NestedZones(int depth) {
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n";
  for (int i = 0; i < depth; ++i)
    xml += "<zone id=\"z" + std::to_string(i) + "\" routing=\"Full\">";
  xml +=
      "<host id=\"a\" speed=\"1Gf\"/><host id=\"b\" speed=\"1Gf\"/>"
      "<link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>"
      "<route src=\"a\" dst=\"b\"><link_ctn id=\"l\"/></route>";
  for (int i = 0; i < depth; ++i) xml += "</zone>";
  return xml + "\n</platform>\n";
}

TEST_CASE("SimGrid quantities parse with SimGrid's units", "[sim][platform]") {
  CHECK(*ParseQuantity("100MBps", Quantity::kBandwidth) == Approx(1e8));
  CHECK(*ParseQuantity("8bps", Quantity::kBandwidth) == Approx(1));
  CHECK(*ParseQuantity("1KiBps", Quantity::kBandwidth) == Approx(1024));
  CHECK(*ParseQuantity("2.5e3", Quantity::kBandwidth) == Approx(2500));
  CHECK(*ParseQuantity("15.7Tf", Quantity::kSpeed) == Approx(15.7e12));
  CHECK(*ParseQuantity("3megaflops", Quantity::kSpeed) == Approx(3e6));
  CHECK(*ParseQuantity("5us", Quantity::kTime) == Approx(5e-6));
  CHECK(*ParseQuantity("0", Quantity::kTime) == 0);
  CHECK(*ParseQuantity("1GiB", Quantity::kSize) == Approx(1073741824.0));
  for (const char* bad : {"", "GBps", "1 GBps", "1Gfoo", "nanGBps", "infBps", "1e400GBps"}) {
    INFO(bad);
    auto x = ParseQuantity(bad, Quantity::kBandwidth);
    REQUIRE_FALSE(x.ok());
    CHECK(x.status().code() == Code::kInvalidArgument);
    CHECK_THAT(x.status().message(), Catch::Contains("bandwidth"));
  }
}

TEST_CASE("Every platform in sim/platforms passes validation", "[sim][platform]") {
  int checked = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(std::string(FB_SOURCE_DIR) + "/sim/platforms")) {
    if (e.path().extension() != ".xml") continue;
    const Status s = ValidatePlatformFile(e.path().string());
    INFO(e.path().string() << ": " << s.ToString());
    CHECK(s.ok());
    ++checked;
  }
  CHECK(checked >= 5);
}

TEST_CASE("Generated platforms pass validation", "[sim][platform]") {
  std::vector<StatusOr<std::string>> xmls;
  xmls.push_back(FatTreeClusterXml(16, "ib"));
  xmls.push_back(FatTreeClusterXml(7, "10gbe"));
  xmls.push_back(MultiGpuNodeXml(4, "nvlink"));
  xmls.push_back(MultiGpuNodeXml(3, "pcie"));
  xmls.push_back(MpiNodeXml({{"ps", 1}, {"worker", 3}}, DeviceClass{"CPU", 1e10, 4e9, 1000, 0}));
  xmls.push_back(SingleCpuXml("cpu0", 1e10, 4e9, 1000));
  for (const auto& xml : xmls) {
    INFO(xml.status().ToString());
    REQUIRE(xml.ok());
    const Status s = ValidatePlatformXml(*xml, "generated.xml");
    INFO(*xml << "\n" << s.ToString());
    CHECK(s.ok());
  }
}

// Each file of tests/data/bad/platform_*.xml with what its message must name besides the file.
// SimGrid 3.32 alone aborts (xbt_die) or crashes on most of them, or accepts a zero, NaN or
// negative value that aborts the simulation later.
const std::vector<std::pair<std::string, std::vector<std::string>>> kBadPlatforms = {
    {"zero_bandwidth", {"line 7", "link 'ab'", "bandwidth must be > 0", "0Bps"}},
    {"nan_bandwidth", {"link 'ab'", "not a finite number"}},
    {"negative_latency", {"link 'ab'", "latency must be >= 0"}},
    {"bad_unit", {"link 'ab'", "unknown bandwidth unit 'Gfoo'"}},
    {"zero_speed", {"host 'a'", "speed must be > 0"}},
    {"duplicate_link", {"line 8", "a second link with id 'ab'"}},
    {"duplicate_route", {"line 9", "a second route from 'b' to 'a' in zone 'z'"}},
    {"duplicate_host", {"host 'a'", "a second host or router named 'a'"}},
    {"bad_routing", {"zone 'z'", "routing must be one of", "Fastest"}},
    {"dijkstra_disconnected", {"zone 'z'", "no path of routes from 'a' to 'c'"}},
    {"none_routing", {"zone 'z'", "routing None allows one host"}},
    {"vivaldi_no_coordinates", {"host 'a'", "coordinates"}},
    {"fat_tree_mismatch", {"cluster 'c'", "FAT_TREE", "4 hosts", "2;4,4;1,4;1,1"}},
    {"torus_mismatch", {"cluster 'c'", "TORUS", "4 hosts", "3,3"}},
    {"dragonfly", {"cluster 'c'", "DRAGONFLY is not supported"}},
    {"reversed_radical", {"cluster 'c'", "radical", "5-1"}},
    {"too_many_hosts", {"cluster 'c'", "0-100000", "100000"}},
    {"actor", {"<actor>", "flowbench creates the actors"}},
    {"config", {"<config>", "configures SimGrid itself"}},
    {"pstate_out_of_range", {"host 'a'", "pstate must be an integer in [0, 1]"}},
    {"zero_cores", {"host 'a'", "core must be an integer in [1,"}},
    {"availability_file", {"host 'a'", "availability_file", "not supported"}},
    {"host_link_undeclared", {"host_link 'a'", "link 'a_up' is not declared"}},
    {"unknown_element", {"hots 'a'", "unknown element in zone 'z'"}},
    {"unknown_link_ctn", {"SimGrid refused it", "zz"}},  // well-formed: SimGrid throws
    {"no_doctype", {"<!DOCTYPE platform"}},
    {"old_version", {"version=\"4.1\"", "got version '3'"}},
    {"no_zone", {"line 4", "declares no zone"}},
    {"two_roots", {"line 6", "zone 'y'", "a second root zone", "the first is at line 5"}},
    {"root_cabinet", {"cabinet 'c'", "<platform> holds one <zone> or <cluster>"}},
    {"cabinet_outside_cluster", {"cabinet 'c'", "routing=\"Cluster\"", "zone 'z'"}},
    {"peer_outside_vivaldi", {"peer 'p'", "routing=\"Vivaldi\"", "zone 'z'"}},
    {"floyd_self_route", {"line 11", "route from 'a' to 'a'", "symmetrical=\"NO\" in a Floyd zone"}},
    {"dijkstra_self_route", {"route from 'a' to 'a'", "Dijkstra zone"}},
    {"cabinet_link_name", {"link 'link_h0_UP'", "cabinet or peer host 'h0'"}},
    {"peer_link_name", {"link 'link_p_DOWN'", "peer host 'p'"}},
    {"cluster_link_name", {"line 9", "link 'c_link_0_UP'", "'c_'", "cluster 'c'"}},
    {"empty", {"is empty"}},
    {"binary", {"is binary", "NUL byte"}},
    {"not_xml", {"line 1", "not well-formed XML"}},
    {"truncated", {"line 6", "not well-formed XML"}},
};

TEST_CASE("A bad platform file gives InvalidArgument naming the file and the element",
          "[sim][platform]") {
  for (const auto& [name, parts] : kBadPlatforms) {
    const std::string path = BadPlatform(name);
    const std::string status = test::LoadPlatformInChild(path);
    INFO(path << " -> " << status);
    CHECK_THAT(status, Catch::StartsWith("InvalidArgument: platform file '" + path + "'"));
    for (const std::string& part : parts) CHECK_THAT(status, Catch::Contains(part));
  }
}

TEST_CASE("A platform path that is a directory or missing names the path", "[sim][platform]") {
  fb::test::TempDir dir;
  std::string status = test::LoadPlatformInChild(dir.path());
  CHECK_THAT(status, Catch::Contains("platform file '" + dir.path() + "' is a directory"));
  status = test::LoadPlatformInChild(dir.file("missing.xml"));
  CHECK_THAT(status, Catch::StartsWith("NotFound: platform file '" + dir.file("missing.xml")));
}

TEST_CASE("A Full zone with more members than the limit is refused", "[sim][platform]") {
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\"><zone id=\"big\" routing=\"Full\">";
  for (size_t i = 0; i <= kMaxFullZoneMembers; ++i)
    xml += "<host id=\"h" + std::to_string(i) + "\" speed=\"1Gf\"/>";
  const Status s = ValidatePlatformXml(xml + "</zone></platform>", "big.xml");
  CHECK_THAT(s.message(), Catch::Contains("platform file 'big.xml'"));
  CHECK_THAT(s.message(), Catch::Contains("zone 'big'"));
  CHECK_THAT(s.message(), Catch::Contains("at most " + std::to_string(kMaxFullZoneMembers)));
}

TEST_CASE("Zones nested 1000 deep are refused with the limit", "[sim][platform]") {
  fb::test::TempDir dir;
  const std::string deep = dir.file("deep1000.xml");
  std::ofstream(deep) << NestedZones(1000);
  std::string status = test::LoadPlatformInChild(deep);
  CHECK_THAT(status, Catch::StartsWith("InvalidArgument: platform file '" + deep + "'"));
  CHECK_THAT(status, Catch::Contains("nested too deep"));
  // Past the limit but within libxml2's: the zone that goes too deep is named.
  const std::string over = dir.file("deep65.xml");
  std::ofstream(over) << NestedZones(kMaxZoneDepth + 1);
  status = test::LoadPlatformInChild(over);
  CHECK_THAT(status, Catch::Contains("platform file '" + over + "'"));
  CHECK_THAT(status, Catch::Contains("zone 'z" + std::to_string(kMaxZoneDepth) + "'"));
  CHECK_THAT(status, Catch::Contains("nested deeper than " + std::to_string(kMaxZoneDepth)));
  // At the limit it loads.
  const std::string ok = dir.file("deep64.xml");
  std::ofstream(ok) << NestedZones(kMaxZoneDepth);
  CHECK(ValidatePlatformFile(ok).ok());
  CHECK(test::LoadPlatformInChild(ok) == "OK");
}

TEST_CASE("Hosts without a route between them give InvalidArgument naming both before the run",
          "[sim][platform]") {
  // x on the parameter server's host a, y on the worker's host b: the transfer x -> y needs a
  // route from a to b, which the platform lacks (SimGrid 3.32 crashed looking it up).
  const std::string path = BadPlatform("no_route");
  const std::string status = test::StatusInChild([&path]() -> Status {
    auto g = Graph::FromGraphDef(fb::test::ParseGraph(std::string(R"({"nodes": [
      {"name": "x", "op": "Const", "device": "/job:ps/replica:0/task:0/device:CPU:0", )") +
                                                      test::kScalarConst + R"(},
      {"name": "y", "op": "Identity", "device": "/job:worker/replica:0/task:0/device:CPU:0",
       "inputs": ["x"], "attrs": {"T": {"type": "float"}}}]})"));
    RETURN_IF_ERROR(g.status());
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(path));
    SimRunOptions opts;
    opts.workload.ps = 1;
    opts.workload.replicas = 1;
    return sim.Run(**g, test::TableCosts({{"x", 0.1}}, {{"x", 1000}}), opts).status();
  });
  INFO(status);
  CHECK_THAT(status, Catch::StartsWith("InvalidArgument: platform file '" + path + "'"));
  CHECK_THAT(status, Catch::Contains("no route from host 'a' to host 'b'"));
}

}  // namespace
// A host with out-of-range device properties (found by fuzz_platform: memory_bytes="1e90" was
// cast to int64_t, undefined behaviour) is refused with the host and the property named.
TEST_CASE("Out-of-range device properties give InvalidArgument naming the host",
          "[sim][platform]") {
  fb::test::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"memory_bytes", "1e90"}, {"memory_bytes", "-1"}, {"launch_overhead_ns", "-5"}};
  for (const auto& [prop, value] : cases) {
    const std::string path = dir.file(prop + value + ".xml");
    std::ofstream(path)
        << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
           "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"
           "<host id=\"gpu0\" speed=\"1Gf\"><prop id=\"" << prop << "\" value=\"" << value
        << "\"/></host></zone></platform>\n";
    INFO(prop << "=" << value);
    const std::string status = test::LoadPlatformInChild(path);
    CHECK_THAT(status, Catch::StartsWith("InvalidArgument"));
    CHECK_THAT(status, Catch::Contains("host 'gpu0'"));
    CHECK_THAT(status, Catch::Contains(prop));
  }
}

}  // namespace fb::sim
