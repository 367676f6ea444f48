// `flowbench place --metrics-json`: one placer's summary at the top level (what `flowbench sweep`
// reads), several placers' summaries keyed by placer.
#include <cstdlib>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/apps/cli.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

nlohmann::json PlaceMetrics(const test::TempDir& dir, const std::string& placers) {
  const std::string path = dir.file("m.json");
  const std::string cmd = std::string(FB_BINARY_DIR) +
                          "/flowbench place --model mlp --batch-size 8 --placers " + placers +
                          " --metrics-json " + path + " > /dev/null";
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST_CASE("flowbench place --metrics-json writes one placer's summary at the top level",
          "[apps][place]") {
  test::TempDir dir;
  nlohmann::json one = PlaceMetrics(dir, "greedy");
  CHECK(one["placer"] == "greedy");
  CHECK(one["predicted_step_ns"].get<double>() > 0);
  CHECK(one["graph"] == "model:mlp");
  CHECK(one["devices"].size() == 4);  // --devices cpu:4 by default
  CHECK(one["devices"][0].contains("peak_bytes"));
  nlohmann::json two = PlaceMetrics(dir, "single,round_robin");
  CHECK(two["single"]["bytes_crossing"] == 0);
  CHECK(two["round_robin"]["bytes_crossing"].get<double>() > 0);
  CHECK(two["num_nodes"].get<int>() > 0);
}

TEST_CASE("flowbench place refuses a synthetic graph too large and names an invalid graph file",
          "[apps][errors]") {
  test::Cli cli;
  // 100000x100000 (10^10 nodes) ran until memory ran out.
  CHECK(cli.Run("place --synthetic 100000x100000") == 1);
  CHECK_THAT(cli.Stderr(), Catch::Contains("--synthetic '100000x100000': 10000000000 nodes"));
  std::ofstream(cli.dir + "/g.json") << R"({"version": 1, "nodes": [{"name": "y", "op": "Relu",
                                        "inputs": ["nowhere"], "attrs": {"T": "float"}}]})";
  CHECK(cli.Run("place --graph " + cli.dir + "/g.json") == 1);
  CHECK_THAT(cli.Stderr(), Catch::Contains("graph file '" + cli.dir + "/g.json': node 'y'"));
}

}  // namespace
}  // namespace fb
