// libFuzzer target: GraphDef JSON files as `flowbench run --graph` and `flowbench sim --graph`
// read them: ReadGraphDefFile (JSON parse, attrs resolved through the op registry), then
// Graph::FromGraphDef (the validation Session::Extend does: ops, attrs, inputs, dtypes, cycles).
// A graph that builds is converted back to a GraphDef and JSON, as the CLI's --export-graph
// does. Any Status is an acceptable answer; crashes, hangs, leaks and UB are findings.
// Seeds: tests/fuzz/corpus/graph_json (tests/fuzz/make_seeds.cc), dictionary graph_json.dict.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "engine/graph/graph.h"
#include "engine/graph/node_def.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fb::fuzz::WriteInputFile(data, size, "graph", ".json");
  fb::StatusOr<fb::GraphDef> def = fb::ReadGraphDefFile(path);
  if (!def.ok()) return 0;
  fb::StatusOr<std::unique_ptr<fb::Graph>> graph = fb::Graph::FromGraphDef(*def);
  if (!graph.ok()) return 0;
  (void)fb::GraphDefToJson((*graph)->ToGraphDef()).dump();
  return 0;
}
