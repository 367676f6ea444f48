// Waiting ranks that poll on shared cores (sim/core_sharing.h, wait_core_weight): hand-computed
// step times on 1- and 2-core machines, the generators and the CLI that write the property, and
// bad values.
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core_sharing.h"
#include "sim/core_sharing_platform.h"
#include "sim/emulated_cluster_platform.h"
#include "sim/platform_generator.h"
#include "sim/simulator.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::kCpuProps;
using test::WriteFile;

// `devices` CPU devices of 1 GFLOP/s sharing `cores` cores, a waiting one polling with `weight`.
std::string Platform(const fb::test::TempDir& dir, int devices, int cores, double weight) {
  auto xml = LocalCpuDevicesXml(devices, 1e9, kCpuProps, SharedCores{cores, 1, weight});
  INFO(xml.status().ToString());
  REQUIRE(xml.ok());
  std::ostringstream name;
  name << "cpu" << devices << "_" << cores << "_" << weight << ".xml";
  return WriteFile(dir, name.str(), *xml);
}

// A 1 s kernel k<i> on each of CPU:0 .. CPU:computing-1, and on CPU:computing a free Identity of
// k0: that device waits (and polls) until k0's output arrives over two 1 us in-process links.
std::string ComputingAndWaiting(int computing) {
  std::string nodes;
  for (int k = 0; k < computing; ++k)
    nodes += R"({"name": "k)" + std::to_string(k) + R"(", "op": "Const", "device": "/device:CPU:)" +
             std::to_string(k) + "\", " + test::kScalarConst + "},";
  nodes += R"({"name": "w", "op": "Identity", "device": "/device:CPU:)" +
           std::to_string(computing) +
           R"(", "inputs": ["k0"], "attrs": {"T": {"type": "float"}}})";
  return R"({"nodes": [)" + nodes + "]}";
}

double StepTime(const std::string& platform, const std::string& graph_json, int kernels) {
  auto g = test::MakeGraph(graph_json);
  std::map<std::string, double> seconds = {{"w", 0.0}};
  for (int k = 0; k < kernels; ++k) seconds["k" + std::to_string(k)] = 1.0;
  const SimCosts costs = test::TableCosts(seconds, {});
  StatusOr<SimResult> r = test::RunSimInChild([&]() -> StatusOr<SimResult> {
    Simulation sim;
    RETURN_IF_ERROR(sim.LoadPlatform(platform));
    return sim.Run(*g, costs, SimRunOptions{});
  });
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->step_times_s.size() == 1);
  return r->step_times_s[0];
}

constexpr double kHop = 2e-6;  // k0 -> w: two 1 us links, 4 bytes at 1e15 B/s

TEST_CASE("A waiting device polling with weight w gives 3 computing devices 2 over 3 + w cores",
          "[sim][core_sharing][wait_polling]") {
  fb::test::TempDir dir;
  // 3 threads computing and one device waiting on 2 cores: each kernel gets 2 / (3 + w) of a
  // core, so the 1 s kernels end at (3 + w) / 2 s, then k0's output reaches CPU:3.
  const std::string graph = ComputingAndWaiting(3);
  CHECK(StepTime(Platform(dir, 4, 2, 0), graph, 3) == Approx(1.5 + kHop).epsilon(1e-9));
  CHECK(StepTime(Platform(dir, 4, 2, 0.5), graph, 3) == Approx(1.75 + kHop).epsilon(1e-9));
  CHECK(StepTime(Platform(dir, 4, 2, 1), graph, 3) == Approx(2.0 + kHop).epsilon(1e-9));
  // Weight 2 (a rank polling with two threads): 2 / 5 of a core, 2.5 s.
  CHECK(StepTime(Platform(dir, 4, 2, 2), graph, 3) == Approx(2.5 + kHop).epsilon(1e-9));
  // A whole CPU per device: nobody shares, the weight is not even written.
  CHECK(StepTime(Platform(dir, 4, 0, 1), graph, 3) == Approx(1.0 + kHop).epsilon(1e-9));
}

TEST_CASE("A waiting device takes a free core without slowing the computing one",
          "[sim][core_sharing][wait_polling]") {
  fb::test::TempDir dir;
  // 2 cores: one computing, one polling: each has a core (2 ranks on 2 cores are unchanged).
  const std::string graph = ComputingAndWaiting(1);
  CHECK(StepTime(Platform(dir, 2, 2, 1), graph, 1) == Approx(1.0 + kHop).epsilon(1e-9));
  CHECK(StepTime(Platform(dir, 2, 2, 8), graph, 1) == Approx(1.0 + kHop).epsilon(1e-9));
  // 1 core: the computing device gets 1 / (1 + w) of it.
  CHECK(StepTime(Platform(dir, 2, 1, 1), graph, 1) == Approx(2.0 + kHop).epsilon(1e-9));
  CHECK(StepTime(Platform(dir, 2, 1, 0.25), graph, 1) == Approx(1.25 + kHop).epsilon(1e-9));
}

TEST_CASE("Devices that compute do not poll", "[sim][core_sharing][wait_polling]") {
  fb::test::TempDir dir;
  // 4 independent 1 s kernels on 4 devices sharing 2 cores: 2 s with or without a weight, as
  // nobody waits while they run (each device's poller is suspended while it computes, and the
  // step ends when the last kernel does).
  std::string nodes;
  for (int k = 0; k < 4; ++k)
    nodes += std::string(k ? "," : "") + R"({"name": "k)" + std::to_string(k) +
             R"(", "op": "Const", "device": "/device:CPU:)" + std::to_string(k) + "\", " +
             test::kScalarConst + "}";
  const std::string graph = R"({"nodes": [)" + nodes + "]}";
  CHECK(StepTime(Platform(dir, 4, 2, 1), graph, 4) == Approx(2.0).epsilon(1e-9));
  CHECK(StepTime(Platform(dir, 4, 2, 0), graph, 4) == Approx(2.0).epsilon(1e-9));
}

// A platform whose host cpu0 has `props` (raw XML <prop> elements) and a 2-core machine.
std::string RawPlatform(const fb::test::TempDir& dir, const std::string& props) {
  return WriteFile(dir, "raw.xml",
                   "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
                   "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                   "<zone id=\"z\" routing=\"Full\">\n<host id=\"cpu0\" speed=\"1Gf\">" + props +
                   "</host>\n<host id=\"machine\" speed=\"1Gf\" core=\"2\"><prop "
                   "id=\"device_type\" value=\"none\"/></host>\n</zone>\n</platform>\n");
}

TEST_CASE("Bad wait_core_weight values are refused naming the host and the property",
          "[sim][core_sharing][wait_polling]") {
  fb::test::TempDir dir;
  const std::string sharing = "<prop id=\"shares_cores_with\" value=\"machine\"/>";
  for (const std::string bad : {"-0.5", "8.01", "nan", "inf", "one", "1e999", "0.5x", ""}) {
    const std::string text = test::LoadPlatformInChild(
        RawPlatform(dir, sharing + "<prop id=\"wait_core_weight\" value=\"" + bad + "\"/>"));
    INFO(bad << ": " << text);
    CHECK_THAT(text, Catch::Contains("host 'cpu0': property wait_core_weight must be a number in "
                                     "[0, 8]"));
    CHECK_THAT(text, Catch::Contains("got '" + bad + "'"));
  }
  const std::string text =
      test::LoadPlatformInChild(RawPlatform(dir, "<prop id=\"wait_core_weight\" value=\"1\"/>"));
  CHECK_THAT(text, Catch::Contains("host 'cpu0': property wait_core_weight needs "
                                   "shares_cores_with"));
  CHECK_THAT(CheckSharedCores(SharedCores{2, 1, 8.5}, "mpi-node").message(),
             Catch::Contains("mpi-node: the weight of a waiting device in the sharing of the "
                             "cores must be in [0, 8], got 8.5"));
  CHECK_THAT(CheckSharedCores(SharedCores{2, 1, -1}, "emulated").message(),
             Catch::Contains("got -1"));
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Runs `flowbench sim-platform ARGS OUT`; the exit code, and stderr in *err.
int SimPlatform(const fb::test::TempDir& dir, const std::string& args, std::string* err) {
  const std::string err_path = dir.file("err.txt");
  const int status = std::system((std::string(FB_BINARY_DIR) + "/flowbench sim-platform " + args +
                                  " > /dev/null 2> " + err_path).c_str());
  *err = ReadAll(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("sim-platform writes the measured waiting weight for MPI ranks and none for one process",
          "[sim][core_sharing][wait_polling]") {
  fb::test::TempDir dir;
  const std::string out = dir.file("p.xml");
  std::string err;
  std::ostringstream measured;
  measured << "<prop id=\"wait_core_weight\" value=\"" << kMpiWaitCoreWeight << "\"/>";
  const auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (size_t at = 0; (at = text.find(what, at)) != std::string::npos; ++at) ++n;
    return n;
  };
  REQUIRE(SimPlatform(dir, "mpi-node:ps=1,worker=3 --cores 2 " + out, &err) == 0);
  CHECK(count(ReadAll(out), measured.str()) == 4);
  REQUIRE(SimPlatform(dir, "emulated:4:1gbit:50us --cores 2 " + out, &err) == 0);
  CHECK(count(ReadAll(out), measured.str()) == 4);
  REQUIRE(SimPlatform(dir, "mpi-node:worker=2 --cores 2 --wait-core-weight 0.25 " + out, &err) ==
          0);
  CHECK(count(ReadAll(out), "<prop id=\"wait_core_weight\" value=\"0.25\"/>") == 2);
  REQUIRE(SimPlatform(dir, "mpi-node:worker=2 --cores 2 --wait-core-weight 0 " + out, &err) == 0);
  CHECK(count(ReadAll(out), "wait_core_weight") == 0);
  REQUIRE(SimPlatform(dir, "mpi-node:worker=2 --cores 0 " + out, &err) == 0);
  CHECK(count(ReadAll(out), "wait_core_weight") == 0);
  // The devices of one process have no MPI progress: no weight unless asked for.
  REQUIRE(SimPlatform(dir, "cpu-devices:2 --cores 2 " + out, &err) == 0);
  CHECK(count(ReadAll(out), "wait_core_weight") == 0);
  REQUIRE(SimPlatform(dir, "cpu-devices:2 --cores 2 --wait-core-weight 0.5 " + out, &err) == 0);
  CHECK(count(ReadAll(out), "<prop id=\"wait_core_weight\" value=\"0.5\"/>") == 2);
  for (const std::string bad : {"9", "-1", "nan", "x"}) {
    INFO(bad);
    CHECK(SimPlatform(dir, "mpi-node:worker=2 --wait-core-weight " + bad + " " + out, &err) != 0);
    CHECK_THAT(err, Catch::Contains("--wait-core-weight"));
  }
}

}  // namespace
}  // namespace fb::sim
