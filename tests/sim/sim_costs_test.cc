// LoadSimGraph (sim/sim_costs.h) on inputs a user gets wrong: a synthetic graph too large to
// build, and a graph file whose graph is invalid (the message names the file).
#include "sim/sim_costs.h"

#include <fstream>

#include <catch2/catch.hpp>

#include "tests/engine/trace/temp_dir.h"

namespace fb::sim {
namespace {

TEST_CASE("LoadSimGraph refuses synthetic graphs too large to build", "[sim][errors]") {
  // synthetic:1000000:1000000 (2 x 10^12 nodes) ran until memory ran out.
  auto huge = LoadSimGraph("", "synthetic:1000000:1000000", 1, "train");
  REQUIRE_FALSE(huge.ok());
  CHECK_THAT(huge.status().message(),
             Catch::Contains("'synthetic:1000000:1000000': 2000005000003 nodes") &&
                 Catch::Contains("more than the 1000000"));
  // Past int: refused as malformed, not wrapped.
  CHECK_THAT(LoadSimGraph("", "synthetic:99999999999:1", 1, "train").status().message(),
             Catch::Contains("expected synthetic or synthetic:LAYERS:ELEMENTWISE"));
  auto small = LoadSimGraph("", "synthetic:2:1", 1, "train");
  INFO(small.status().ToString());
  REQUIRE(small.ok());
  CHECK(small->graph->num_nodes() == 2 * (2 * 1 + 5) + 3);
}

TEST_CASE("LoadSimGraph names the graph file of an invalid graph", "[sim][errors]") {
  test::TempDir dir;
  const std::string path = dir.file("g.json");
  std::ofstream(path) << R"({"version": 1, "nodes": [{"name": "y", "op": "Relu",
                          "inputs": ["nowhere"], "attrs": {"T": "float"}}]})";
  auto g = LoadSimGraph(path, "", 1, "train");
  REQUIRE_FALSE(g.ok());
  // Was "graph file '.../g.json'node 'y': ...".
  CHECK_THAT(g.status().message(), Catch::Contains("graph file '" + path + "': node 'y'"));
}

TEST_CASE("MakeSimCosts names an empty measured trace path", "[sim][errors]") {
  // Was "NotFound: : cannot open trace".
  auto g = LoadSimGraph("", "synthetic:1:0", 1, "train");
  REQUIRE(g.ok());
  for (const std::string spec : {"measured:", "measured-mean:"}) {
    auto c = MakeSimCosts(*g->graph, g->feed_shapes, spec);
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().message() == "--cost-model '" + spec + "': expected " + spec + "TRACE.h5");
  }
}

TEST_CASE("LoadSimGraph lists the synthetic models with the registered ones", "[sim][errors]") {
  // `flowbench sim --model nosuch` listed the registered models only, not the README's synthetic.
  auto g = LoadSimGraph("", "nosuch", 1, "train");
  REQUIRE_FALSE(g.ok());
  CHECK(g.status().code() == Code::kNotFound);
  CHECK_THAT(g.status().message(),
             Catch::Contains("unknown model 'nosuch' (known: alexnet") &&
                 Catch::EndsWith("; --model also takes synthetic and synthetic:LAYERS:ELEMENTWISE"));
}

}  // namespace
}  // namespace fb::sim
