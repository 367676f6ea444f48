// A host's per-byte cost of the messages it sends (send_serialize_bytes_per_s, sim/message_cost.h):
// serialisation booked on the same one-at-a-time handler as the messages it receives, the queue
// by hand, the property with bad values, and hand-computed dense null steps.
// Platform: sim/platforms/star_4.xml (h0..h3, a route crosses two 1 ms, 100 MB/s links; memory
// bandwidth 1 GB/s).
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "sim/message_cost.h"
#include "sim/simulator.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::PlatformPath;
using test::TableCosts;

TEST_CASE("MessageQueues books sending and receiving on one handler per host", "[sim]") {
  MessageCost c;
  c.serialize_bytes_per_s = 1e6;  // 1 us per byte received
  c.send_bytes_per_s = 1e6;       // 1 us per byte sent
  c.latency_s = 0.5;              // the wake-up of an idle handler: receiving only
  MessageQueues q({c, MessageCost{}});
  REQUIRE(q.enabled());
  CHECK(q.Send(0, 1.0, 1000) == Approx(1.001));   // idle: starts at once (no wake-up)
  CHECK(q.Handle(0, 1.0005, 1000) == Approx(1.002));  // busy sending until 1.001: then 1 ms
  CHECK(q.Send(0, 1.0015, 2000) == Approx(1.004));  // behind the received message: 2 ms
  CHECK(q.Send(0, 5.0, 1000) == Approx(5.001));     // idle again
  CHECK(q.Send(1, 3.0, 1000000) == Approx(3.0));    // a host without a sending cost: at once
  // A host with a receiving cost only books nothing for what it sends.
  MessageCost recv_only;
  recv_only.serialize_bytes_per_s = 1e6;
  MessageQueues r({recv_only});
  CHECK(r.Send(0, 1.0, 1000) == Approx(1.0));
  CHECK(r.Handle(0, 1.0, 1000) == Approx(1.001));
  CHECK(c.SendSeconds(2000) == Approx(0.002));
  CHECK(recv_only.SendSeconds(2000) == 0);
}

TEST_CASE("ParseMessageCost reads send_serialize_bytes_per_s and refuses bad values by name",
          "[sim]") {
  auto ok = ParseMessageCost("h2", nullptr, nullptr, nullptr, "4e9");
  REQUIRE(ok.ok());
  CHECK(ok->send_bytes_per_s == Approx(4e9));
  CHECK(ok->enabled());
  CHECK(ok->SendSeconds(4000000) == Approx(1e-3));
  CHECK(ok->Seconds(4000000) == 0);  // receiving stays free
  for (const char* bad : {"-1", "nan", "inf", "1e300", "fast", ""}) {
    INFO(bad);
    auto s = ParseMessageCost("h2", nullptr, nullptr, nullptr, bad);
    REQUIRE_FALSE(s.ok());
    CHECK(s.status().code() == Code::kInvalidArgument);
    REQUIRE_THAT(s.status().message(), Catch::Contains("host 'h2'") &&
                                           Catch::Contains("send_serialize_bytes_per_s") &&
                                           Catch::Contains(std::string("'") + bad + "'"));
  }
}

TEST_CASE("A platform's send_serialize_bytes_per_s is read per host and checked", "[sim]") {
  const auto dir = std::filesystem::temp_directory_path() / "fb_send_serialize_test";
  std::filesystem::create_directories(dir);
  auto platform = [&](const std::string& name, const std::string& value) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="world" routing="Full">
    <host id="ps0" speed="1Gf"><prop id="send_serialize_bytes_per_s" value=")"
                        << value << R"("/></host>
    <host id="w0" speed="1Gf"/>
    <link id="l" bandwidth="100MBps" latency="1ms"/>
    <route src="ps0" dst="w0"><link_ctn id="l"/></route>
  </zone>
</platform>
)";
    return path;
  };
  const std::string bad = platform("bad.xml", "-3");
  const std::string status = test::LoadPlatformInChild(bad);
  CHECK_THAT(status, Catch::Contains("host 'ps0'") &&
                         Catch::Contains("send_serialize_bytes_per_s") && Catch::Contains(bad));
  const std::string good = platform("good.xml", "2.5e9");
  const std::string text = test::TextFromChild([&] {
    Simulation sim;
    if (!sim.LoadPlatform(good).ok()) return std::string("error");
    return std::to_string(sim.devices()[0].message_cost.send_bytes_per_s) + " " +
           std::to_string(sim.devices()[1].message_cost.enabled());
  });
  CHECK(text == "2500000000.000000 0");
}

// The dense null step with 25,000 floats (100 KB) each way, 3 steps.
StatusOr<SimResult> DenseNullStep(int workers, double recv_bytes_per_s, double send_bytes_per_s) {
  SimRunOptions o;
  o.workload.steps = 3;
  MessageCost c;
  c.serialize_bytes_per_s = recv_bytes_per_s;
  c.send_bytes_per_s = send_bytes_per_s;
  o.message_cost = c;
  return test::RunNullStepInChild(25000, workers, o);
}

void CheckSteps(const StatusOr<SimResult>& r, double expected_s) {
  test::CheckStepTimes(r, 3, expected_s);
}

TEST_CASE("Sent messages are serialised on the sender's handler before they enter the links",
          "[sim]") {
  // A 100 KB message crosses a route in 2 ms latency + 1 ms at 100 MB/s; each host handles
  // 100 KB in 1 ms per direction (1e8 bytes/s).
  // One worker: receive-only costs: w 3 ms, handled 1 ms, upd 3 ms, handled 1 ms = 8 ms.
  CheckSteps(DenseNullStep(1, 1e8, 0), 0.008);
  // With sending costs the PS serialises w (1 ms) and the worker upd (1 ms) too: 10 ms.
  CheckSteps(DenseNullStep(1, 1e8, 1e8), 0.010);
  // Two workers: the PS serialises w for w0 (0-1 ms) then for w1 (1-2 ms), one at a time.
  // w0: w arrives at 4, handled until 5, upd serialised until 6, at the PS at 9, handled 9-10.
  // w1: one ms later each: at the PS at 10, handled 10-11; the sum of the two updates on the
  // PS (100 KB at 1 GB/s) adds 0.1 ms: 11.1 ms.
  CheckSteps(DenseNullStep(2, 1e8, 1e8), 0.0111);
}

// `flowbench sim ARGS`: (exit status, -1 on a signal; stderr; the metrics JSON).
std::tuple<int, std::string, std::string> SimCli(const std::string& args,
                                                 const fb::test::TempDir& dir) {
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string cmd = std::string(FB_BINARY_DIR) + "/flowbench sim " + args +
                          " --metrics-json " + dir.file("m.json") + " > " + dir.file("out.txt") +
                          " 2> " + dir.file("err.txt");
  std::filesystem::remove(dir.file("m.json"));
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir.file("err.txt")),
          slurp(dir.file("m.json"))};
}

double MedianStep(const std::string& metrics) {
  const std::string key = "\"median_step_time_s\": ";
  const size_t at = metrics.find(key);
  return at == std::string::npos ? -1 : std::stod(metrics.substr(at + key.size()));
}

TEST_CASE("flowbench sim --send-serialize-bytes-per-s charges every host and names bad values",
          "[sim][cli]") {
  fb::test::TempDir dir;
  const std::string run =
      "--model lenet --batch 8 --platform star_4 --mode sync --replicas 2 --ps 1 --steps 2";
  auto [code0, err0, m0] = SimCli(run, dir);
  INFO(err0);
  REQUIRE(code0 == 0);
  // 1e5 bytes/s: LeNet's ~0.2 MB of parameters take seconds to serialise at each send.
  auto [code1, err1, m1] = SimCli(run + " --send-serialize-bytes-per-s 1e5", dir);
  INFO(err1);
  REQUIRE(code1 == 0);
  CHECK(MedianStep(m1) > MedianStep(m0) + 1.0);
  auto [code2, err2, m2] = SimCli(run + " --send-serialize-bytes-per-s -1", dir);
  CHECK(code2 == 1);
  CHECK_THAT(err2, Catch::Contains("--send-serialize-bytes-per-s") &&
                       Catch::Contains("send_serialize_bytes_per_s") && Catch::Contains("'-1'"));
}

}  // namespace
}  // namespace fb::sim
