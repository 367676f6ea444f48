// The GraphDef JSON reader on hostile input (the hardening issue): out-of-range Const values,
// deep nesting, shapes whose size overflows, sizes the data cannot back, unknown ops with
// untagged attrs, and huge strings echoed in messages. Each case names the node and the value.
#include <cmath>
#include <fstream>
#include <limits>
#include <utility>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/framework/echo_input.h"
#include "engine/graph/graph.h"
#include "engine/graph/graph_json_limits.h"
#include "engine/graph/node_def.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

std::string BadFile(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/tests/data/bad/" + name;
}

// Reads and builds a graph file; returns the first error.
Status LoadError(const std::string& path) {
  auto def = ReadGraphDefFile(path);
  if (!def.ok()) return def.status();
  return Graph::FromGraphDef(*def).status();
}

// Parses a graph from text (through ReadGraphDefFile, so depth limits apply) and builds it.
Status TextError(const std::string& text) {
  test::TempDir dir;
  std::string path = dir.file("g.json");
  std::ofstream(path) << text;
  return LoadError(path);
}

// One Const node `c` of dtype `dtype` with the given shape and values (JSON text).
std::string ConstGraph(const std::string& dtype, const std::string& shape,
                       const std::string& values) {
  return R"({"version": 1, "nodes": [{"name": "c", "op": "Const", "attrs": {"dtype": ")" +
         dtype + R"(", "value": {"tensor": {"dtype": ")" + dtype + R"(", "shape": )" + shape +
         R"(, "values": )" + values + "}}}}]}";
}

TEST_CASE("Const values outside their dtype's range are rejected", "[graph][json][errors]") {
  Status s = LoadError(BadFile("graph_const_int32_out_of_range.json"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("'big'") && Catch::Contains("4000000000") &&
                              Catch::Contains("int32"));
  s = LoadError(BadFile("graph_const_uint8_out_of_range.json"));
  CHECK_THAT(s.message(), Catch::Contains("'small'") && Catch::Contains("300") &&
                              Catch::Contains("uint8") && Catch::Contains("element 1"));
  s = LoadError(BadFile("graph_const_float_out_of_range.json"));
  CHECK_THAT(s.message(), Catch::Contains("'huge'") && Catch::Contains("1e+39") &&
                              Catch::Contains("float"));
  s = LoadError(BadFile("graph_const_int32_not_integral.json"));
  CHECK_THAT(s.message(), Catch::Contains("'frac'") && Catch::Contains("3.5") &&
                              Catch::Contains("not an integer"));
}

TEST_CASE("Every integer dtype checks both ends of its range", "[graph][json][errors]") {
  struct Case {
    const char* dtype;
    const char* lowest;
    const char* highest;
    const char* below;
    const char* above;
  };
  const Case cases[] = {
      {"int8", "-128", "127", "-129", "128"},
      {"int16", "-32768", "32767", "-32769", "32768"},
      {"int32", "-2147483648", "2147483647", "-2147483649", "2147483648"},
      // The JSON parser reads integers beyond int64 as doubles: -2^63 - 1 would read as -2^63.
      {"int64", "-9223372036854775808", "9223372036854775807", "-9223372036854777856",
       "9223372036854775808"},
      {"uint8", "0", "255", "-1", "256"},
      {"uint16", "0", "65535", "-1", "65536"},
      {"uint32", "0", "4294967295", "-1", "4294967296"},
      {"uint64", "0", "18446744073709551615", "-1", "18446744073709551616"},
  };
  for (const Case& c : cases) {
    INFO(c.dtype);
    std::string ok_values = std::string("[") + c.lowest + ", " + c.highest + "]";
    CHECK(TextError(ConstGraph(c.dtype, "[2]", ok_values)).ok());
    for (const char* bad : {c.below, c.above}) {
      INFO(bad);
      Status s = TextError(ConstGraph(c.dtype, "[1]", std::string("[") + bad + "]"));
      CHECK(s.code() == Code::kInvalidArgument);
      CHECK_THAT(s.message(), Catch::Contains("'c'") && Catch::Contains(c.dtype) &&
                                  Catch::Contains("out of range"));
    }
  }
  // Integral floats are integers; 2^63 as a float is past int64.
  CHECK(TextError(ConstGraph("int32", "[1]", "[3.0]")).ok());
  CHECK_THAT(TextError(ConstGraph("int64", "[1]", "[9.3e18]")).message(),
             Catch::Contains("out of range"));
  CHECK_THAT(TextError(ConstGraph("int32", "[1]", "[\"7\"]")).message(),
             Catch::Contains("expected an integer") && Catch::Contains("\"7\""));
}

TEST_CASE("Bool, float and complex Const values are checked", "[graph][json][errors]") {
  CHECK(TextError(ConstGraph("bool", "[3]", "[true, 0, 1]")).ok());
  CHECK_THAT(TextError(ConstGraph("bool", "[1]", "[2]")).message(),
             Catch::Contains("'c'") && Catch::Contains("not a bool"));
  CHECK_THAT(TextError(ConstGraph("half", "[1]", "[70000]")).message(),
             Catch::Contains("70000") && Catch::Contains("half"));
  CHECK_THAT(TextError(ConstGraph("bfloat16", "[1]", "[1e39]")).message(),
             Catch::Contains("bfloat16"));
  CHECK_THAT(TextError(ConstGraph("double", "[1]", "[1e400]")).message(),
             Catch::Contains("1e400"));
  // numpy prints float32's largest value as 3.4028235e+38: it rounds to FLT_MAX, not infinity.
  CHECK(TextError(ConstGraph("float", "[2]", "[3.4028235e+38, -3.4028235e+38]")).ok());
  CHECK_THAT(TextError(ConstGraph("float", "[1]", "[3.5e38]")).message(),
             Catch::Contains("out of range for float"));
  CHECK_THAT(TextError(ConstGraph("complex64", "[1]", "[[1, 1e39]]")).message(),
             Catch::Contains("out of range"));
  CHECK_THAT(TextError(ConstGraph("float", "[1]", "[\"1.5\"]")).message(),
             Catch::Contains("\"1.5\""));
}

TEST_CASE("NaN and infinity round-trip as the strings nan, inf and -inf", "[graph][json]") {
  auto t = TensorFromJson(nlohmann::json::parse(
      R"({"dtype": "float", "shape": [3], "values": ["nan", "inf", "-inf"]})"));
  REQUIRE(t.ok());
  const float* d = t->data<float>();
  CHECK(std::isnan(d[0]));
  CHECK(d[1] == std::numeric_limits<float>::infinity());
  CHECK(d[2] == -std::numeric_limits<float>::infinity());
  nlohmann::json back = TensorToJson(*t);
  CHECK(back["values"] == nlohmann::json::parse(R"(["nan", "inf", "-inf"])"));
  auto again = TensorFromJson(back);
  REQUIRE(again.ok());
  CHECK(std::isinf(again->data<float>()[1]));
}

TEST_CASE("Graph JSON nested 100000 levels deep is rejected", "[graph][json][errors]") {
  for (int depth : {100000, 50000, kMaxGraphJsonDepth + 1}) {
    INFO(depth);
    std::string deep = std::string(depth, '[') + std::string(depth, ']');
    Status s = TextError(R"({"version": 1, "nodes": [{"name": "n", "op": "Placeholder",
                              "attrs": {"dtype": "float", "shape": )" + deep + "}}]}");
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains("deeper than " + std::to_string(kMaxGraphJsonDepth)));
  }
  // GraphDefFromJson on an already parsed deep document fails cleanly too (no recursion).
  nlohmann::json deep = nlohmann::json::array();
  for (int i = 0; i < 100000; ++i) deep = nlohmann::json::array({std::move(deep)});
  nlohmann::json g = nlohmann::json::parse(
      R"({"nodes": [{"name": "n", "op": "Placeholder", "attrs": {"dtype": "float"}}]})");
  // Moved, not copied: json's copy constructor recurses.
  g["nodes"][0]["attrs"]["shape"] = std::move(deep);
  auto def = GraphDefFromJson(g);
  REQUIRE_FALSE(def.ok());
  CHECK_THAT(def.status().message(), Catch::Contains("'n'") && Catch::Contains("shape"));
  CHECK(def.status().message().size() < 1000);
}

TEST_CASE("Const shapes whose size overflows are rejected before allocating",
          "[graph][json][errors]") {
  Status s = LoadError(BadFile("graph_const_bytes_wrap.json"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("'wrap'") && Catch::Contains("4611686018427387904"));
  s = LoadError(BadFile("graph_const_element_count_overflow.json"));
  CHECK_THAT(s.message(), Catch::Contains("'elements'") && Catch::Contains("overflow"));
  // Negative, non-integer and too many dimensions.
  CHECK_THAT(TextError(ConstGraph("float", "[-1]", "[]")).message(),
             Catch::Contains("'c'") && Catch::Contains("dimension 0") && Catch::Contains("-1"));
  CHECK_THAT(TextError(ConstGraph("float", "[2.5]", "[1]")).message(),
             Catch::Contains("dimension 0") && Catch::Contains("2.5"));
  CHECK_THAT(TextError(ConstGraph("float", "[\"3\"]", "[1]")).message(),
             Catch::Contains("dimension 0"));
  std::string many = "[" + std::string(999 * 2, ' ') + "1";
  for (int i = 0; i < 999; ++i) many[1 + 2 * i] = '1', many[2 + 2 * i] = ',';
  many += "]";
  CHECK_THAT(TextError(ConstGraph("float", many, "[1]")).message(),
             Catch::Contains("1000 dimensions"));
}

TEST_CASE("Shape attrs are checked for overflow and bad dimensions", "[graph][json][errors]") {
  auto placeholder = [](const std::string& shape) {
    return TextError(R"({"nodes": [{"name": "p", "op": "Placeholder", "attrs": {"dtype": "float",
                          "shape": )" + shape + "}}]}");
  };
  CHECK(placeholder("[-1, 784]").ok());
  CHECK(placeholder("\"unknown\"").ok());
  CHECK_THAT(placeholder("[4294967296, 4294967296]").message(),
             Catch::Contains("'p'") && Catch::Contains("overflow"));
  CHECK_THAT(placeholder("[-2]").message(), Catch::Contains("'p'") && Catch::Contains("-2"));
  CHECK_THAT(placeholder("[1.5]").message(), Catch::Contains("1.5"));
  CHECK_THAT(placeholder("[18446744073709551615]").message(),
             Catch::Contains("18446744073709551615"));
}

TEST_CASE("A Const whose shape needs more data than given fails before allocating",
          "[graph][json][errors]") {
  // 4 TB of float with 3 values: InvalidArgument, not an allocation of 4 TB.
  Status s = LoadError(BadFile("graph_const_4tb_three_values.json"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("'fourtb'") && Catch::Contains("1099511627776") &&
                              Catch::Contains("got 3"));
  // 16 GB from one broadcast value: over the documented limit for broadcast constants.
  s = TextError(ConstGraph("float", "[4294967296]", "[0]"));
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("'c'") && Catch::Contains("broadcast"));
  // A small broadcast is fine.
  CHECK(TextError(ConstGraph("float", "[4, 4]", "[0.5]")).ok());
}

TEST_CASE("An unknown op is reported before its untagged attrs", "[graph][json][errors]") {
  Status s = LoadError(BadFile("graph_unknown_op_untagged_attr.json"));
  CHECK(s.code() == Code::kNotFound);
  CHECK_THAT(s.message(), Catch::Contains("'mystery'") && Catch::Contains("unknown op 'NoSuchOp'"));
  CHECK_THAT(s.message(), !Catch::Contains("type tag"));
}

TEST_CASE("Huge names and values in a graph file give short messages", "[graph][json][errors]") {
  const std::string big(10 << 20, 'z');
  const std::string graphs[] = {
      R"({"nodes": [{"name": "n", "op": ")" + big + R"("}]})",
      R"({"nodes": [{"name": ")" + big + R"(", "op": "NoSuchOp"}]})",
      R"({"nodes": [{"name": "n", "op": "Placeholder", "attrs": {"dtype": ")" + big + R"("}}]})",
      R"({"nodes": [{"name": "n", "op": "Placeholder", "attrs": {")" + big + R"(": 1}}]})",
      R"({"nodes": [{"name": "n", "op": "Placeholder", "device": ")" + big +
          R"(", "attrs": {"dtype": "float"}}]})",
      R"({"nodes": [{"name": "n", "op": "Identity", "inputs": [")" + big +
          R"("], "attrs": {"T": "float"}}]})",
      R"({"nodes": [{"name": "n", "op": "Placeholder", "attrs": {"dtype": "float",
          "shape": ")" + big + R"("}}]})",
      R"({"nodes": [{"name": "n", "op": "Placeholder", "attrs": {"dtype": "float"}},
                    {"name": "n", "op": "Placeholder", "attrs": {"dtype": "float"}}], "x": ")" +
          big,  // not even valid JSON: the parse error quotes the last token
  };
  for (const std::string& g : graphs) {
    Status s = TextError(g);
    INFO(s.message().substr(0, 300));
    CHECK_FALSE(s.ok());
    CHECK(s.message().size() <= kMaxMessageBytes + 600);
  }
  // Graph validation (dangling input of a node with a 10 MB name) bounds what it echoes too.
  auto def = GraphDefFromJson(nlohmann::json::parse(
      R"({"nodes": [{"name": ")" + big + R"(", "op": "Identity", "inputs": ["nowhere"],
                     "attrs": {"T": "float"}}]})"));
  REQUIRE(def.ok());
  Status s = Graph::FromGraphDef(*def).status();
  CHECK_THAT(s.message(), Catch::Contains("nowhere") && Catch::Contains("bytes)"));
  CHECK(s.message().size() < 600);
}

// `flowbench sim --graph DIR` and `place --graph DIR` aborted: std::ifstream opens a directory,
// and the JSON parser's read of it threw std::ios_base::failure (EISDIR) past the reader.
TEST_CASE("A directory given as the graph file is an error naming it", "[graph][json][errors]") {
  test::TempDir dir;
  auto def = ReadGraphDefFile(dir.path());
  REQUIRE_FALSE(def.ok());
  CHECK(def.status().code() == Code::kInvalidArgument);
  CHECK_THAT(def.status().message(),
             Catch::Contains("graph file '" + dir.path() + "' is a directory"));
  auto missing = ReadGraphDefFile(dir.file("missing.json"));
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.status().message(), Catch::Contains("missing.json"));
}

}  // namespace
}  // namespace fb
