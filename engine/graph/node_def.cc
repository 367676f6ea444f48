#include "engine/graph/node_def.h"

#include <fstream>
#include <ios>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/framework/device_name.h"
#include "engine/framework/echo_input.h"
#include "engine/framework/input_file.h"
#include "engine/framework/op_def.h"
#include "engine/graph/graph_json_limits.h"

namespace fb {

using json = nlohmann::json;

std::string TensorId::ToString() const {
  return IsControl() ? "^" + node : node + ":" + std::to_string(index);
}

StatusOr<TensorId> ParseTensorId(const std::string& s) {
  TensorId id;
  if (!s.empty() && s[0] == '^') {
    id.node = s.substr(1);
    id.index = -1;
  } else {
    size_t colon = s.rfind(':');
    id.node = s.substr(0, colon);
    if (colon != std::string::npos) {
      std::string port = s.substr(colon + 1);
      if (port.empty() || port.size() > 6 || port.find_first_not_of("0123456789") != std::string::npos)
        return InvalidArgument("malformed tensor name '", EchoInput(s),
                               "': port must be a number");
      id.index = std::stoi(port);
    }
  }
  if (id.node.empty())
    return InvalidArgument("malformed tensor name '", EchoInput(s), "': empty node name");
  return id;
}

json GraphDefToJson(const GraphDef& g) {
  json nodes = json::array();
  for (const NodeDef& n : g.nodes) {
    json attrs = json::object();
    for (const auto& [k, v] : n.attrs) attrs[k] = AttrValueToJson(v);
    json jn = {{"name", n.name}, {"op", n.op}, {"inputs", n.inputs}, {"attrs", attrs}};
    if (!n.device.empty()) jn["device"] = n.device;
    nodes.push_back(jn);
  }
  return json{{"version", g.version}, {"nodes", nodes}};
}

namespace {

// "node 'NAME'" with the name bounded for messages.
std::string NodeWhere(const std::string& name) { return "node '" + EchoInput(name) + "'"; }

Status ReadInputs(const json& j, const std::string& where, std::vector<std::string>* inputs) {
  if (!j.is_array()) return InvalidArgument(where, ": 'inputs' must be a list, got ", EchoJson(j));
  for (const auto& in : j) {
    if (!in.is_string())
      return InvalidArgument(where, ": inputs must be strings, got ", EchoJson(in));
    auto id = ParseTensorId(in.get<std::string>());
    if (!id.ok()) return id.status().WithPrefix(where + ": ");
    inputs->push_back(in.get<std::string>());
  }
  return Status::OK();
}

// Attrs are parsed with the types the OpDef gives them (untagged values need it).
Status ReadAttrs(const json& j, const OpDef& op, const std::string& where, AttrMap* attrs) {
  if (!j.is_object())
    return InvalidArgument(where, ": 'attrs' must be an object, got ", EchoJson(j));
  for (const auto& [k, v] : j.items()) {
    const AttrDef* def = op.FindAttr(k);
    auto value = AttrValueFromJson(v, def ? &def->type : nullptr);
    if (!value.ok()) return value.status().WithPrefix(where + ": attr '" + EchoInput(k) + "': ");
    (*attrs)[k] = std::move(value).value();
  }
  return Status::OK();
}

StatusOr<NodeDef> NodeDefFromJson(const json& j, size_t index) {
  NodeDef n;
  if (!j.is_object()) return InvalidArgument("nodes[", index, "] is not an object: ", EchoJson(j));
  if (!j.contains("name") || !j["name"].is_string())
    return InvalidArgument("nodes[", index, "] has no string 'name'");
  n.name = j["name"].get<std::string>();
  std::string where = NodeWhere(n.name);
  if (!j.contains("op") || !j["op"].is_string())
    return InvalidArgument(where, " has no string 'op'");
  n.op = j["op"].get<std::string>();
  // The op first: attrs of an unknown op cannot be interpreted, so their errors would mislead.
  auto op = OpRegistry::Global()->LookUp(n.op);
  if (!op.ok())
    return NotFound(where, ": unknown op '", EchoInput(n.op),
                    "' (`flowbench ops` lists the registered ops)");
  if (j.contains("device")) {
    const json& d = j["device"];
    if (!d.is_string())
      return InvalidArgument(where, ": 'device' must be a string, got ", EchoJson(d));
    n.device = d.get<std::string>();
    if (!ParseDeviceName(n.device).ok())
      return InvalidArgument(where, ": malformed device '", EchoInput(n.device),
                             "' (expected e.g. /job:worker/task:0/device:CPU:0 or /device:GPU:*)");
  }
  if (j.contains("inputs")) RETURN_IF_ERROR(ReadInputs(j["inputs"], where, &n.inputs));
  if (j.contains("attrs")) RETURN_IF_ERROR(ReadAttrs(j["attrs"], **op, where, &n.attrs));
  return n;
}

StatusOr<GraphDef> GraphDefFromJsonUnchecked(const json& j) {
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array())
    return InvalidArgument("a GraphDef must be an object with a 'nodes' list");
  GraphDef g;
  if (j.contains("version")) {
    const json& v = j["version"];
    if (!v.is_number_integer() || v.get<int64_t>() != 1)
      return InvalidArgument("unsupported GraphDef version ", EchoJson(v), " (expected 1)");
    g.version = 1;
  }
  size_t i = 0;
  for (const auto& jn : j["nodes"]) {
    ASSIGN_OR_RETURN(NodeDef n, NodeDefFromJson(jn, i++));
    g.nodes.push_back(std::move(n));
  }
  return g;
}

// Thrown from the parser callback to stop at the first value nested too deep.
struct TooDeep {};

// Parses `in`, rejecting documents nested deeper than kMaxGraphJsonDepth while parsing (the
// DOM is built iteratively; only its users recurse).
StatusOr<json> ParseGraphJson(std::istream& in, const std::string& path) {
  auto limit_depth = [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start ||
         event == json::parse_event_t::array_start) && depth >= kMaxGraphJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return json::parse(in, limit_depth);
  } catch (const TooDeep&) {
    return InvalidArgument("graph file '", EchoInput(path, 512), "' nests JSON deeper than ",
                           kMaxGraphJsonDepth, " levels (the limit for graph files)");
  } catch (const json::exception& e) {
    // what() quotes the last token read, which can be as large as the file.
    return InvalidArgument("graph file '", EchoInput(path, 512), "' is not valid JSON: ",
                           EchoInput(e.what(), 300));
  } catch (const std::ios_base::failure& e) {
    // The parser reads the stream buffer directly, which throws on a read error (EISDIR, EIO).
    return DataLoss("graph file '", EchoInput(path, 512), "' cannot be read: ",
                    EchoInput(e.what(), 300));
  }
}

}  // namespace

StatusOr<GraphDef> GraphDefFromJson(const json& j) {
  try {
    auto g = GraphDefFromJsonUnchecked(j);
    if (!g.ok()) return CapMessage(g.status());
    return g;
  } catch (const json::exception& e) {
    return InvalidArgument("malformed GraphDef: ", EchoInput(e.what(), 300));
  }
}

StatusOr<GraphDef> ReadGraphDefFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open graph file '", EchoInput(path, 512), "'");
  RETURN_IF_ERROR(CheckInputFile(path, "graph file"));
  ASSIGN_OR_RETURN(json j, ParseGraphJson(in, path));
  auto g = GraphDefFromJson(j);
  if (!g.ok()) return g.status().WithPrefix("graph file '" + EchoInput(path, 512) + "': ");
  return g;
}

Status WriteGraphDefFile(const GraphDef& g, const std::string& path) {
  std::ofstream out(path);
  if (!out) return NotFound("cannot write graph file '", path, "'");
  out << GraphDefToJson(g).dump(1) << "\n";
  if (!out) return DataLoss("failed writing graph file '", path, "'");
  return Status::OK();
}

}  // namespace fb
