// LoadSimGraph (sim/sim_costs.h) on inputs a user gets wrong: a synthetic graph too large to
// build, and a graph file whose graph is invalid (the message names the file).
#include "sim/sim_costs.h"

#include <fstream>

#include <catch2/catch.hpp>

#include "engine/trace/trace_writer.h"
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

// A trace with one step and, when `node` is given, one compute event of that node.
std::string StepTrace(const test::TempDir& dir, const std::string& node) {
  const std::string path = dir.file(node.empty() ? "empty.h5" : node + ".h5");
  auto w = TraceWriter::Create(path, DefaultTraceMetadata(TraceMode::kReal, 0, nullptr));
  REQUIRE(w.ok());
  if (!node.empty()) {
    TraceEvent e;
    e.device = "/job:localhost/replica:0/task:0/device:CPU:0";
    e.node = node;
    e.op = "MatMul";
    e.start_ns = 10;
    e.end_ns = 1010;
    REQUIRE((*w)->AddEvent(e).ok());
  }
  StepTotals t;
  t.start_ns = 0;
  t.end_ns = 2000;
  REQUIRE((*w)->AddStep(0, {}, t).ok());
  REQUIRE((*w)->Close().ok());
  return path;
}

TEST_CASE("measured: refuses a trace that measured no node of the graph", "[sim][errors]") {
  // Both replayed every node analytically ("measured:T (0 nodes)") and reported an error
  // against the steps of another run.
  test::TempDir dir;
  auto g = LoadSimGraph("", "synthetic:1:0", 1, "train");
  REQUIRE(g.ok());
  const std::string empty = StepTrace(dir, "");
  auto none = MakeSimCosts(*g->graph, g->feed_shapes, "measured:" + empty);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(none.status().message(),
             Catch::Contains("trace '" + empty + "' holds no node executions (traced with "
                             "--trace-steps 0?)"));
  const std::string other = StepTrace(dir, "another_model_node");
  auto foreign = MakeSimCosts(*g->graph, g->feed_shapes, "measured-mean:" + other);
  REQUIRE_FALSE(foreign.ok());
  CHECK_THAT(foreign.status().message(),
             Catch::Contains("measured none of the " + std::to_string(g->graph->num_nodes()) +
                             " nodes of the simulated graph (1 node executions of another"));
}

}  // namespace
}  // namespace fb::sim
