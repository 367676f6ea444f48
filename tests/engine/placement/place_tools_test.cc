// The pieces `flowbench place` and the placer benchmark are made of: config files, the
// --devices flag, the synthetic layered graph and the placer summaries.
#include <algorithm>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/framework/device.h"
#include "engine/placement/device_config.h"
#include "engine/placement/placement_report.h"
#include "experiments/models/model_graph.h"
#include "experiments/models/synthetic_graph.h"

namespace fb {
namespace {

TEST_CASE("The device and link config files in experiments/ parse", "[placement][device_config]") {
  const std::string dir = std::string(FB_SOURCE_DIR) + "/experiments/";
  auto cpu4 = ReadPlatformFile(dir + "devices/cpu4.json");
  INFO(cpu4.status().ToString());
  REQUIRE(cpu4.ok());
  CHECK(cpu4->devices.size() == 4);
  CHECK(cpu4->devices[3].name == "/job:localhost/replica:0/task:0/device:CPU:3");
  auto gpus = ReadPlatformFile(dir + "devices/gpu4_host.json");
  REQUIRE(gpus.ok());
  CHECK(gpus->devices.size() == 5);
  CHECK(gpus->devices[1].memory_limit_bytes == 80000000000);
  REQUIRE(ReadLinkFile(dir + "links/pcie4_nvlink.json", &gpus->links).ok());
  CHECK(gpus->links.Find(gpus->devices[1].name, gpus->devices[2].name).bandwidth_bytes_per_s ==
        4.5e11);
  CHECK(gpus->links.Find(gpus->devices[0].name, gpus->devices[2].name).bandwidth_bytes_per_s ==
        5e10);
  LinkSet eth;
  REQUIRE(ReadLinkFile(dir + "links/ethernet_10g.json", &eth).ok());
  CHECK(eth.default_link.latency_ns == 50000);
}

// A directory read as empty text: "parse error ... unexpected end of input".
TEST_CASE("A directory given as a device config or link file is refused naming it",
          "[placement][device_config][errors]") {
  const std::string dir = std::string(FB_SOURCE_DIR) + "/experiments/devices";
  auto config = ReadPlatformFile(dir);
  REQUIRE_FALSE(config.ok());
  CHECK_THAT(config.status().message(),
             Catch::Contains("device config '" + dir + "' is a directory"));
  LinkSet links;
  Status s = ReadLinkFile(dir, &links);
  CHECK_THAT(s.message(), Catch::Contains("link file '" + dir + "' is a directory"));
}

TEST_CASE("The --devices flag cpu:N sets the number of CPU devices", "[placement][device_config]") {
  DeviceOptions o;
  REQUIRE(ApplyDevicesFlag("cpu:4", &o).ok());
  CHECK(o.num_cpu_devices == 4);
  REQUIRE(ApplyDevicesFlag("CPU:2", &o).ok());
  CHECK(o.num_cpu_devices == 2);
  REQUIRE(ApplyDevicesFlag("gpu:2", &o).ok());
  CHECK(o.num_cpu_devices == 1);  // the host; the GPUs come from the GPU device factory
  for (const char* bad : {"cpu", "cpu:0", "gpu:0", "tpu:2", "cpu:x", "cpu:-1", ""}) {
    Status s = ApplyDevicesFlag(bad, &o);
    INFO(bad);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.message(), Catch::Contains("expected cpu:N or gpu:N"));
    CHECK_THAT(s.message(), Catch::Contains(std::string("'") + bad + "'"));
  }
  o.num_cpu_devices = 3;
  o.threads_per_cpu = 1;
  auto mgr = DeviceMgr::CreateLocal(o);
  REQUIRE(mgr.ok());
  CHECK((*mgr)->devices().size() >= 3);
}

// Runs every registered placer on `g`, checking each placement covers the graph.
std::vector<PlacerRun> RunAllPlacers(const Graph& g, const CostModel& cost) {
  std::vector<PlacerRun> runs;
  for (const std::string& name : PlacerRegistry::Global()->Names()) {
    auto run = EvaluatePlacer(g, cost, name);
    INFO(name << ": " << run.status().ToString());
    REQUIRE(run.ok());
    int total = 0;
    for (int n : run->prediction.num_nodes) total += n;
    CHECK(total == g.num_nodes());
    CHECK(run->prediction.step_ns > 0);
    runs.push_back(std::move(*run));
  }
  return runs;
}

const PlacerRun& Find(const std::vector<PlacerRun>& runs, const std::string& placer) {
  auto it = std::find_if(runs.begin(), runs.end(), [&](const PlacerRun& r) { return r.placer == placer; });
  REQUIRE(it != runs.end());
  return *it;
}

TEST_CASE("Placers on a synthetic layered graph: valid placements and summaries",
          "[placement][placer]") {
  SyntheticGraphOptions o;
  o.layers = 30;
  o.width = 20;
  auto g = BuildLayeredGraph(o);
  REQUIRE(g.ok());
  CHECK((*g)->num_nodes() == 1 + 30 * 21);
  auto cost = CostModel::Create(**g, LocalDevices("CPU", 4));
  REQUIRE(cost.ok());
  std::vector<PlacerRun> runs = RunAllPlacers(**g, *cost);
  // Single device: nothing crosses; the cost-model placers do no worse than it.
  CHECK(Find(runs, "single").prediction.bytes_crossing == 0);
  CHECK(Find(runs, "greedy").prediction.step_ns <= Find(runs, "single").prediction.step_ns);
  CHECK(Find(runs, "heft").prediction.step_ns <= Find(runs, "single").prediction.step_ns);
  nlohmann::json j = PlacerRunToJson(Find(runs, "greedy"), *cost);
  CHECK(j["placer"] == "greedy");
  CHECK(j["devices"].size() == 4);
  CHECK(j["predicted_step_ns"].get<double>() == Find(runs, "greedy").prediction.step_ns);
  std::string table = FormatPlacerRuns(runs, *cost);
  CHECK_THAT(table, Catch::Contains("round_robin") && Catch::Contains("step_ms(pred)"));
}

TEST_CASE("Placers on the LeNet training graph (flowbench place --model lenet)",
          "[placement][placer]") {
  auto m = experiments::BuildModelGraph("lenet", 32);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  CHECK(m->feed_shapes.size() == 2);  // images [32,28,28,1] and labels
  CostModelOptions copts;
  copts.feed_shapes = m->feed_shapes;
  auto cost = CostModel::Create(*m->graph, LocalDevices("CPU", 4), LinkSet(), copts);
  INFO(cost.status().ToString());
  REQUIRE(cost.ok());
  std::vector<PlacerRun> runs = RunAllPlacers(*m->graph, *cost);
  CHECK(Find(runs, "round_robin").prediction.bytes_crossing > 0);
  CHECK(Find(runs, "greedy").prediction.step_ns <= Find(runs, "round_robin").prediction.step_ns);
  CHECK_FALSE(experiments::BuildModelGraph("resnet", 32).ok());
}

}  // namespace
}  // namespace fb
