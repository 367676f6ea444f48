#pragma once
// NodeDef and GraphDef: the serializable description of a graph (whitepaper section 2).
// JSON form (docs/graph-format.md):
//   {"version": 1, "nodes": [{"name": "W", "op": "Variable", "device": "/device:CPU:0",
//     "inputs": ["x:0", "^init"], "attrs": {"dtype": {"type": "float"}, ...}}, ...]}
// Inputs are "node" (port 0), "node:port" or "^node" (control input, after all data inputs).
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/framework/attr_value.h"

namespace fb {

struct NodeDef {
  std::string name;
  std::string op;
  std::vector<std::string> inputs;
  std::string device;  // requested device (a partial constraint); may be empty
  AttrMap attrs;
};

struct GraphDef {
  int version = 1;
  std::vector<NodeDef> nodes;
};

// A parsed input string: "x:1" -> {"x", 1}; "^x" -> {"x", -1}; "x" -> {"x", 0}.
struct TensorId {
  std::string node;
  int index = 0;  // -1 for a control input
  bool IsControl() const { return index < 0; }
  std::string ToString() const;  // "x:1" or "^x"
  bool operator<(const TensorId& o) const {
    return node < o.node || (node == o.node && index < o.index);
  }
  bool operator==(const TensorId& o) const { return node == o.node && index == o.index; }
};
// Parses "node", "node:port" or "^node". InvalidArgument for "", ":3", "x:-1", "x:abc".
StatusOr<TensorId> ParseTensorId(const std::string& s);

// JSON I/O. Attrs are written tagged; reading resolves untagged attrs through the op registry,
// so every error names the node. The file variants name the file in their errors.
nlohmann::json GraphDefToJson(const GraphDef& g);
// InvalidArgument for a malformed document: wrong JSON types, a malformed device or input
// string, an attr value that does not fit its type (a Const value outside its dtype's range,
// a shape with a non-integer or negative dimension, a tensor whose byte size would overflow or
// whose shape needs more values than given: checked before allocating); NotFound naming the
// node for an unknown op (checked before its attrs). Input quoted in messages is bounded
// (EchoInput), and the whole message is capped at kMaxMessageBytes. Edges are checked later,
// by Graph::FromGraphDef. Limits: engine/graph/graph_json_limits.h, docs/graph-format.md.
StatusOr<GraphDef> GraphDefFromJson(const nlohmann::json& j);
// As GraphDefFromJson, naming the file; also NotFound for a missing file and InvalidArgument
// for invalid JSON (with its position) or JSON nested deeper than kMaxGraphJsonDepth (rejected
// while parsing).
StatusOr<GraphDef> ReadGraphDefFile(const std::string& path);
Status WriteGraphDefFile(const GraphDef& g, const std::string& path);

}  // namespace fb
