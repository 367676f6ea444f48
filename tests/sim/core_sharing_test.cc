// Devices that share one machine's cores (sim/core_sharing.h): hand-computed step times on a
// 2-core machine, the generators that describe the sharing, and bad sharing properties.
#include "sim/core_sharing.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>

#include <simgrid/s4u/Host.hpp>

#include "sim/core_sharing_platform.h"
#include "sim/emulated_cluster_platform.h"
#include "sim/platform_generator.h"
#include "sim/simulator.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::TableCosts;

using test::kCpuProps;
using test::WriteFile;

// `devices` CPU devices of 1 GFLOP/s sharing `cores` cores (0: a whole CPU each).
std::string CpuDevicesPlatform(const fb::test::TempDir& dir, int devices, int cores) {
  auto xml = LocalCpuDevicesXml(devices, 1e9, kCpuProps, SharedCores{cores, 1});
  INFO(xml.status().ToString());
  REQUIRE(xml.ok());
  return WriteFile(dir, "cpu" + std::to_string(devices) + "_" + std::to_string(cores) + ".xml",
                   *xml);
}

// One Const of 1 s on each of the first `kernels` devices: independent kernels.
std::string IndependentKernels(int kernels) {
  std::string nodes;
  for (int k = 0; k < kernels; ++k)
    nodes += std::string(k ? "," : "") + R"({"name": "k)" + std::to_string(k) +
             R"(", "op": "Const", "device": "/device:CPU:)" + std::to_string(k) + "\", " +
             test::kScalarConst + "}";
  return R"({"nodes": [)" + nodes + "]}";
}

// The one step's time of `graph_json` on `platform`, simulated in a child process (SimGrid 3.32
// supports one engine per process: the tests compare several simulations).
double StepTime(const std::string& platform, const std::string& graph_json,
                const std::map<std::string, double>& seconds) {
  auto g = MakeGraph(graph_json);
  const SimCosts costs = TableCosts(seconds, {});
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

// Loads `path` in a child process and describes each device, one line each: "NAME MACHINE/CORES
// threads=T" ("own" for a device on its own host), " scaled" if it has per-op time scales or
// rate curves; or the load error.
std::string DescribeSharing(const std::string& path) {
  return test::TextFromChild([&]() -> std::string {
    Simulation sim;
    Status s = sim.LoadPlatform(path);
    if (!s.ok()) return s.ToString();
    std::string out;
    for (const SimDevice& d : sim.devices()) {
      out += d.desc.name + " ";
      out += d.cores.machine ? d.cores.machine->get_name() + "/" +
                                   std::to_string(d.cores.machine->get_core_count())
                             : std::string("own");
      out += " threads=" + std::to_string(d.cores.exec_threads);
      if (d.host->get_property("op_time_scale:Conv2D") != nullptr ||
          d.host->get_property("op_flops_per_s:Conv2D") != nullptr)
        out += " scaled";
      out += "\n";
    }
    return out;
  });
}

int Lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

std::map<std::string, double> OneSecondEach(int kernels) {
  std::map<std::string, double> s;
  for (int k = 0; k < kernels; ++k) s["k" + std::to_string(k)] = 1.0;
  return s;
}

TEST_CASE("Equal independent kernels on a 2-core shared machine take 1x 1.5x and 2x one kernel",
          "[sim][core_sharing]") {
  fb::test::TempDir dir;
  // 2 kernels on 2 cores: one core each, 1 s. 3 kernels: 2/3 of a core each, 1.5 s. 4: 2 s.
  CHECK(StepTime(CpuDevicesPlatform(dir, 2, 2), IndependentKernels(2), OneSecondEach(2)) ==
        Approx(1.0).epsilon(1e-9));
  CHECK(StepTime(CpuDevicesPlatform(dir, 3, 2), IndependentKernels(3), OneSecondEach(3)) ==
        Approx(1.5).epsilon(1e-9));
  CHECK(StepTime(CpuDevicesPlatform(dir, 4, 2), IndependentKernels(4), OneSecondEach(4)) ==
        Approx(2.0).epsilon(1e-9));
  // A whole CPU per device (the platforms before sharing): 4 kernels in parallel, 1 s.
  CHECK(StepTime(CpuDevicesPlatform(dir, 4, 0), IndependentKernels(4), OneSecondEach(4)) ==
        Approx(1.0).epsilon(1e-9));
}

TEST_CASE("A chain across devices sharing 2 cores takes the sum of its kernels and transfers",
          "[sim][core_sharing]") {
  // a (CPU:0, 1 s) -> b (CPU:1, 0.5 s) -> c (CPU:2, 0.25 s): never two kernels at once, so
  // sharing neither helps nor hurts; each hop crosses two 1 us in-process links (4 bytes at
  // 1e15 B/s).
  const std::string chain = std::string(R"({"nodes": [
    {"name": "a", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "b", "op": "Identity", "device": "/device:CPU:1", "inputs": ["a"], "attrs": {"T": {"type": "float"}}},
    {"name": "c", "op": "Identity", "device": "/device:CPU:2", "inputs": ["b"], "attrs": {"T": {"type": "float"}}}
  ]})";
  fb::test::TempDir dir;
  const std::map<std::string, double> s = {{"a", 1.0}, {"b", 0.5}, {"c", 0.25}};
  const double shared = StepTime(CpuDevicesPlatform(dir, 4, 2), chain, s);
  const double dedicated = StepTime(CpuDevicesPlatform(dir, 4, 0), chain, s);
  CHECK(shared == Approx(dedicated).epsilon(1e-12));
  CHECK(shared == Approx(1.75 + 2 * 2 * 1e-6).epsilon(1e-9));
}

TEST_CASE("Kernels of one device run one at a time whether its machine has 1 core or 2",
          "[sim][core_sharing]") {
  // Two independent 1 s kernels on CPU:0 of a 2-core machine: the device runs one node at a
  // time (sim/simulator.h), so the free core does not halve the step.
  const std::string two_on_one = std::string(R"({"nodes": [
    {"name": "k0", "op": "Const", "device": "/device:CPU:0", )") + test::kScalarConst + R"(},
    {"name": "k1", "op": "Const", "device": "/device:CPU:0", )" + test::kScalarConst + R"(}
  ]})";
  fb::test::TempDir dir;
  CHECK(StepTime(CpuDevicesPlatform(dir, 2, 2), two_on_one, OneSecondEach(2)) ==
        Approx(2.0).epsilon(1e-9));
}

// Two devices of 2 GFLOP/s whose executions may use `threads` cores of a 2-core machine
// (core speed 1 GFLOP/s: only the count matters).
std::string ThreadsPlatform(const fb::test::TempDir& dir, const std::string& threads) {
  std::string hosts;
  for (int d = 0; d < 2; ++d)
    hosts += "<host id=\"cpu" + std::to_string(d) +
             "\" speed=\"2Gf\"><prop id=\"shares_cores_with\" value=\"machine\"/>"
             "<prop id=\"device_name\" value=\"/job:localhost/replica:0/task:0/device:CPU:" +
             std::to_string(d) + "\"/>"
             "<prop id=\"exec_threads\" value=\"" + threads + "\"/></host>\n";
  return WriteFile(dir, "threads" + threads + ".xml",
                   "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
                   "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                   "<zone id=\"z\" routing=\"Full\">\n" + hosts +
                   "<host id=\"machine\" speed=\"1Gf\" core=\"2\"><prop id=\"device_type\" "
                   "value=\"none\"/></host>\n"
                   "<link id=\"l\" bandwidth=\"1GBps\" latency=\"0\"/>\n"
                   "<route src=\"cpu0\" dst=\"cpu1\"><link_ctn id=\"l\"/></route>\n"
                   "</zone>\n</platform>\n");
}

TEST_CASE("An execution with 2 threads uses both cores alone and shares them with another",
          "[sim][core_sharing]") {
  fb::test::TempDir dir;
  const std::string platform = ThreadsPlatform(dir, "2");
  // Alone: the 1 s kernel takes 1 s on two cores. Two of them: each gets one core, 2 s.
  CHECK(StepTime(platform, IndependentKernels(1), OneSecondEach(1)) == Approx(1.0).epsilon(1e-9));
  CHECK(StepTime(platform, IndependentKernels(2), OneSecondEach(2)) == Approx(2.0).epsilon(1e-9));
}

TEST_CASE("Bad core-sharing properties are refused naming the host", "[sim][core_sharing]") {
  fb::test::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"0", "property exec_threads must be an integer in [1, 65536], got '0'"},
      {"-2", "got '-2'"},
      {"two", "got 'two'"},
      {"1e99", "got '1e99'"},
      {"99999999999999999999", "got '99999999999999999999'"},
      {"1.5", "got '1.5'"},
  };
  for (const auto& [threads, expected] : bad) {
    const std::string text = test::LoadPlatformInChild(ThreadsPlatform(dir, threads));
    INFO(threads << ": " << text);
    CHECK_THAT(text, Catch::Contains("host 'cpu0'"));
    CHECK_THAT(text, Catch::Contains(expected));
  }
  auto with_machine = [&](const std::string& machine, const std::string& extra) {
    return WriteFile(dir, "m.xml",
                     "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM "
                     "\"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n"
                     "<zone id=\"z\" routing=\"Full\">\n<host id=\"cpu0\" speed=\"1Gf\">" +
                         machine + extra + "</host>\n</zone>\n</platform>\n");
  };
  std::string text = test::LoadPlatformInChild(
      with_machine("<prop id=\"shares_cores_with\" value=\"nowhere\"/>", ""));
  CHECK_THAT(text, Catch::Contains("host 'cpu0': property shares_cores_with names host 'nowhere', "
                                   "which the platform does not have"));
  text = test::LoadPlatformInChild(
      with_machine("<prop id=\"shares_cores_with\" value=\"cpu0\"/>", ""));
  CHECK_THAT(text,
             Catch::Contains("host 'cpu0': property shares_cores_with names the host itself"));
  text = test::LoadPlatformInChild(with_machine("", "<prop id=\"exec_threads\" value=\"2\"/>"));
  CHECK_THAT(text, Catch::Contains("host 'cpu0': property exec_threads needs shares_cores_with"));
}

TEST_CASE("Generated MPI-node and emulated platforms describe ranks sharing the cores",
          "[sim][core_sharing]") {
  fb::test::TempDir dir;
  const DeviceClass cpu{"CPU", 4e10, 7e9, 442, 0};
  auto mpi = MpiNodeXml({{"ps", 1}, {"worker", 3}}, cpu, "shm", SharedCores{2, 1});
  REQUIRE(mpi.ok());
  EmulatedClusterSpec spec;
  spec.hosts = 4;
  spec.rate_bits_per_s = 1e9;
  spec.delay_s = 50e-6;
  spec.sharing = SharedCores{2, 2};
  auto emulated = EmulatedClusterXml(spec, cpu);
  REQUIRE(emulated.ok());
  for (const std::string& xml : {*mpi, *emulated}) {
    const std::string devices = DescribeSharing(WriteFile(dir, "p.xml", xml));
    INFO(devices);
    CHECK(Lines(devices) == 4);  // the machine host is not a device
    const std::string sharing = std::string(kSharedMachineHost) + "/2 threads=" +
                                (xml == *mpi ? "1" : "2") + "\n";
    int found = 0;
    for (size_t at = 0; (at = devices.find(sharing, at)) != std::string::npos; ++at) ++found;
    CHECK(found == 4);
  }
  // Without sharing, as before: no machine host.
  auto dedicated = MpiNodeXml({{"worker", 2}}, cpu);
  REQUIRE(dedicated.ok());
  CHECK(dedicated->find("shares_cores_with") == std::string::npos);
  CHECK_THAT(MpiNodeXml({{"worker", 2}}, cpu, "shm", SharedCores{-1, 1}).status().message(),
             Catch::Contains("mpi-node: the shared core count must be 0 (a CPU per device) to "
                             "4096, got -1"));
  spec.sharing = SharedCores{5000, 1};
  CHECK_THAT(EmulatedClusterXml(spec, cpu).status().message(), Catch::Contains("got 5000"));
  spec.sharing = SharedCores{2, 0};
  CHECK_THAT(EmulatedClusterXml(spec, cpu).status().message(),
             Catch::Contains("emulated: the threads of a device's execution must be 1 to 4096, "
                             "got 0"));
  CHECK_THAT(LocalCpuDevicesXml(0, 1e9, kCpuProps, SharedCores{2, 1}).status().message(),
             Catch::Contains("1 to 256 CPU devices, got 0"));
  CHECK_THAT(LocalCpuDevicesXml(2, 1e9, {{"a&b", "1"}}, SharedCores{2, 1}).status().message(),
             Catch::Contains("host property 'a&b'"));
}

TEST_CASE("sim-platform cpu-devices copies this_machine.xml's CPU and --cores sets the sharing",
          "[sim][core_sharing]") {
  fb::test::TempDir dir;
  const std::string flowbench = std::string(FB_BINARY_DIR) + "/flowbench";
  const std::string out = dir.file("cpu4.xml");
  REQUIRE(std::system((flowbench + " sim-platform cpu-devices:4 --cores 2 " + out +
                       " > /dev/null 2>&1").c_str()) == 0);
  const std::string four = DescribeSharing(out);
  INFO(four);
  CHECK(Lines(four) == 4);
  // The calibrated per-op time scales travel with the copy.
  CHECK_THAT(four, Catch::Contains("/job:localhost/replica:0/task:0/device:CPU:3 " +
                                   std::string(kSharedMachineHost) + "/2 threads=1 scaled\n"));
  const std::string two = dir.file("cpu2.xml");
  REQUIRE(std::system((flowbench + " sim-platform cpu-devices:2 --cores 2 --exec-threads 2 " +
                       two + " > /dev/null 2>&1").c_str()) == 0);
  CHECK_THAT(DescribeSharing(two), Catch::Contains("device:CPU:1 " +
                                                   std::string(kSharedMachineHost) +
                                                   "/2 threads=2"));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"mpi-node:worker=2 --cores x", "--cores must be an integer, got 'x'"},
      {"mpi-node:worker=2 --cores -1", "got -1"},
      {"emulated:4:1gbit:50us --exec-threads 0", "--exec-threads"},
      {"cpu-devices:2:no_such_base.xml", "no_such_base.xml"},
      {"cpu-devices:2:node_8gpu_pcie.xml", "has 9 devices; cpu-devices copies a platform of one"},
  };
  for (const auto& [args, expected] : bad) {
    const std::string err = dir.file("err.txt");
    const int status = std::system((flowbench + " sim-platform " + args + " " + out +
                                    " > /dev/null 2> " + err).c_str());
    INFO(args);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) != 0);
    std::ifstream in(err);
    CHECK_THAT(std::string(std::istreambuf_iterator<char>(in), {}), Catch::Contains(expected));
  }
}

TEST_CASE("flowbench sim names the host whose shares_cores_with names no host",
          "[sim][core_sharing]") {
  fb::test::TempDir dir;
  const std::string path =
      std::string(FB_SOURCE_DIR) + "/tests/data/bad/platform_shares_cores_unknown_host.xml";
  const std::string err = dir.file("err.txt");
  const int status = std::system((std::string(FB_BINARY_DIR) + "/flowbench sim --model mlp " +
                                  "--platform " + path + " > /dev/null 2> " + err).c_str());
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) != 0);
  std::ifstream in(err);
  const std::string text(std::istreambuf_iterator<char>(in), {});
  CHECK_THAT(text, Catch::Contains("platform file '" + path + "'"));
  CHECK_THAT(text, Catch::Contains("host 'cpu0': property shares_cores_with names host 'machin'"));
}

}  // namespace
}  // namespace fb::sim
