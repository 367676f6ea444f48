#include "engine/graph/node_def.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/framework/op_def.h"

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
        return InvalidArgument("malformed tensor name '", s, "': port must be a number");
      id.index = std::stoi(port);
    }
  }
  if (id.node.empty()) return InvalidArgument("malformed tensor name '", s, "': empty node name");
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
StatusOr<NodeDef> NodeDefFromJson(const json& j, size_t index) {
  NodeDef n;
  if (!j.is_object()) return InvalidArgument("nodes[", index, "] is not an object");
  if (!j.contains("name") || !j["name"].is_string())
    return InvalidArgument("nodes[", index, "] has no string 'name'");
  n.name = j["name"].get<std::string>();
  if (!j.contains("op") || !j["op"].is_string())
    return InvalidArgument("node '", n.name, "' has no string 'op'");
  n.op = j["op"].get<std::string>();
  if (j.contains("device")) n.device = j["device"].get<std::string>();
  if (j.contains("inputs")) {
    if (!j["inputs"].is_array()) return InvalidArgument("node '", n.name, "': 'inputs' must be a list");
    for (const auto& in : j["inputs"]) {
      if (!in.is_string()) return InvalidArgument("node '", n.name, "': inputs must be strings");
      n.inputs.push_back(in.get<std::string>());
    }
  }
  const OpDef* op = nullptr;
  if (auto found = OpRegistry::Global()->LookUp(n.op); found.ok()) op = *found;
  if (j.contains("attrs")) {
    if (!j["attrs"].is_object()) return InvalidArgument("node '", n.name, "': 'attrs' must be an object");
    for (const auto& [k, v] : j["attrs"].items()) {
      const AttrDef* def = op ? op->FindAttr(k) : nullptr;
      auto value = AttrValueFromJson(v, def ? &def->type : nullptr);
      if (!value.ok())
        return InvalidArgument("node '", n.name, "': attr '", k, "': ", value.status().message());
      n.attrs[k] = *value;
    }
  }
  return n;
}
}  // namespace
static StatusOr<GraphDef> GraphDefFromJsonUnchecked(const json& j);

StatusOr<GraphDef> GraphDefFromJson(const json& j) {
  try {
    return GraphDefFromJsonUnchecked(j);
  } catch (const json::exception& e) {
    return InvalidArgument("malformed GraphDef: ", e.what());
  }
}

static StatusOr<GraphDef> GraphDefFromJsonUnchecked(const json& j) {
  if (!j.is_object() || !j.contains("nodes") || !j["nodes"].is_array())
    return InvalidArgument("a GraphDef must be an object with a 'nodes' list");
  GraphDef g;
  if (j.contains("version")) {
    if (!j["version"].is_number_integer()) return InvalidArgument("'version' must be an integer");
    g.version = j["version"].get<int>();
    if (g.version != 1) return InvalidArgument("unsupported GraphDef version ", g.version, " (expected 1)");
  }
  size_t i = 0;
  for (const auto& jn : j["nodes"]) {
    ASSIGN_OR_RETURN(NodeDef n, NodeDefFromJson(jn, i++));
    g.nodes.push_back(std::move(n));
  }
  return g;
}

StatusOr<GraphDef> ReadGraphDefFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open graph file '", path, "'");
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("graph file '", path, "' is not valid JSON");
  auto g = GraphDefFromJson(j);
  if (!g.ok()) return g.status().WithPrefix("graph file '" + path + "': ");
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
