// Graph validation (issue 2, item 3): every malformed GraphDef gives an error naming the node,
// and a failed Extend leaves the graph unchanged.
#include <cstdio>
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/graph/graph.h"
#include "tests/test_util.h"

namespace fb {
namespace {

// Builds a Graph from JSON nodes; returns the status (the graph itself is discarded).
Status BuildError(const std::string& nodes_json) {
  auto def = GraphDefFromJson(nlohmann::json::parse("{\"version\": 1, \"nodes\": " + nodes_json + "}"));
  if (!def.ok()) return def.status();
  return Graph::FromGraphDef(*def).status();
}

const char* kConst =
    R"({"name": "c", "op": "Const", "attrs": {"dtype": {"type": "float"},
        "value": {"tensor": {"dtype": "float", "shape": [], "values": [1.0]}}}})";

TEST_CASE("A valid graph round-trips through JSON", "[graph]") {
  std::string nodes = std::string("[") + kConst +
                      R"(, {"name": "y", "op": "Identity", "inputs": ["c:0"],
                            "attrs": {"T": {"type": "float"}}}])";
  auto def = GraphDefFromJson(nlohmann::json::parse("{\"version\": 1, \"nodes\": " + nodes + "}"));
  REQUIRE(def.ok());
  auto g = Graph::FromGraphDef(*def);
  REQUIRE(g.ok());
  GraphDef back = (*g)->ToGraphDef();
  REQUIRE(back.nodes.size() == 2);
  auto again = Graph::FromGraphDef(back);
  REQUIRE(again.ok());
  CHECK((*again)->FindNode("y")->in_edges().size() == 1);
}

TEST_CASE("Malformed graphs give errors naming the node", "[graph][errors]") {
  SECTION("unknown op") {
    Status st = BuildError(R"([{"name": "mystery", "op": "NoSuchOp"}])");
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains("mystery") && Catch::Contains("NoSuchOp"));
  }
  SECTION("dangling input") {
    Status st = BuildError(R"([{"name": "y", "op": "Identity", "inputs": ["ghost:0"],
                                "attrs": {"T": {"type": "float"}}}])");
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains("'y'") && Catch::Contains("ghost"));
  }
  SECTION("duplicate name") {
    Status st = BuildError(std::string("[") + kConst + "," + kConst + "]");
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains("'c'") && Catch::Contains("uplicate"));
  }
  SECTION("attr of the wrong type") {
    Status st = BuildError(R"([{"name": "p", "op": "Placeholder", "attrs": {"dtype": {"i": 3}}}])");
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains("'p'") && Catch::Contains("dtype"));
  }
  SECTION("dtype mismatch") {
    Status st = BuildError(std::string("[") + kConst +
                           R"(, {"name": "y", "op": "Identity", "inputs": ["c:0"],
                                 "attrs": {"T": {"type": "int32"}}}])");
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains("'y'"));
    CHECK_THAT(st.message(), Catch::Contains("float") && Catch::Contains("int32"));
  }
  SECTION("cycle") {
    Status st = BuildError(R"([{"name": "a", "op": "Identity", "inputs": ["b:0"],
                                "attrs": {"T": {"type": "float"}}},
                               {"name": "b", "op": "Identity", "inputs": ["a:0"],
                                "attrs": {"T": {"type": "float"}}}])");
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains("cycle"));
    CHECK_THAT(st.message(), Catch::Contains("'a'") || Catch::Contains("'b'"));
  }
  SECTION("output port out of range") {
    Status st = BuildError(std::string("[") + kConst +
                           R"(, {"name": "y", "op": "Identity", "inputs": ["c:3"],
                                 "attrs": {"T": {"type": "float"}}}])");
    REQUIRE_FALSE(st.ok());
    CHECK_THAT(st.message(), Catch::Contains("'y'") && Catch::Contains("c:3"));
  }
}

TEST_CASE("A failed Extend leaves the graph unchanged", "[graph][errors]") {
  auto g = Graph::FromGraphDef(test::ParseGraph(std::string("{\"nodes\": [") + kConst + "]}"));
  REQUIRE(g.ok());
  GraphDef bad = test::ParseGraph(
      R"({"nodes": [{"name": "ok", "op": "Identity", "inputs": ["c:0"], "attrs": {"T": {"type": "float"}}},
                    {"name": "bad", "op": "Identity", "inputs": ["nowhere:0"], "attrs": {"T": {"type": "float"}}}]})");
  Status st = (*g)->Extend(bad);
  REQUIRE_FALSE(st.ok());
  CHECK_THAT(st.message(), Catch::Contains("'bad'"));
  CHECK((*g)->num_nodes() == 1);
  CHECK((*g)->FindNode("ok") == nullptr);
}

TEST_CASE("Malformed GraphDef files name the file", "[graph][errors]") {
  auto missing = ReadGraphDefFile("/nonexistent/graph.json");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Catch::Contains("/nonexistent/graph.json"));

  std::string path = "graph_validation_truncated.json";
  { std::ofstream(path) << R"({"version": 1, "nodes": [{"name": "c", )"; }
  auto truncated = ReadGraphDefFile(path);
  std::remove(path.c_str());
  REQUIRE_FALSE(truncated.ok());
  CHECK_THAT(truncated.status().message(), Catch::Contains(path));
}

}  // namespace
}  // namespace fb
