#include "mpi/control_message.h"

#include <iterator>

#include <nlohmann/json.hpp>

#include "mpi/byte_io.h"

namespace fb::mpi {

namespace {
// The compact form (control_message.h) and the types it can carry.
constexpr char kCompactMarker = 'C';
const char* const kCompactTypes[] = {"register", "registered", "run",  "done",    "abort",
                                     "ping",     "pong",       "devices", "shutdown"};

bool IsCompact(const ControlMessage& m) {
  if (!m.partitions.empty() || !m.devices.empty() || !m.stats.empty()) return false;
  for (const char* t : kCompactTypes)
    if (m.type == t) return true;
  return false;
}

std::string EncodeCompact(const ControlMessage& m) {
  std::string out(1, kCompactMarker);
  uint8_t type = 0;
  while (m.type != kCompactTypes[type]) ++type;
  Put(&out, type);
  Put(&out, m.id);
  Put(&out, m.step_id);
  Put(&out, static_cast<uint8_t>(m.trace));
  Put(&out, static_cast<int32_t>(m.status.code()));
  Put(&out, static_cast<uint32_t>(m.status.message().size()));
  out += m.status.message();
  return out;
}

StatusOr<ControlMessage> DecodeCompact(const std::string& bytes) {
  ControlMessage m;
  size_t pos = 1;
  uint8_t type = 0, trace = 0;
  int32_t code = 0;
  uint32_t len = 0;
  if (!Get(bytes, &pos, &type) || !Get(bytes, &pos, &m.id) || !Get(bytes, &pos, &m.step_id) ||
      !Get(bytes, &pos, &trace) || !Get(bytes, &pos, &code) || !Get(bytes, &pos, &len) ||
      pos + len != bytes.size())
    return DataLoss("malformed control message (", bytes.size(), " bytes): truncated or too long");
  if (type >= std::size(kCompactTypes))
    return DataLoss("malformed control message: unknown type ", static_cast<int>(type));
  m.type = kCompactTypes[type];
  m.trace = trace != 0;
  auto c = static_cast<Code>(code);
  m.status = c == Code::kOk ? Status::OK() : Status(c, bytes.substr(pos, len));
  return m;
}

nlohmann::json StatusToJson(const Status& s) {
  return {{"code", static_cast<int>(s.code())}, {"message", s.message()}};
}
Status StatusFromJson(const nlohmann::json& j) {
  auto code = static_cast<Code>(j.at("code").get<int>());
  return code == Code::kOk ? Status::OK() : Status(code, j.at("message").get<std::string>());
}
// One NodeExecStats as a JSON array (compact: a traced step carries one per executed node).
nlohmann::json StatsToJson(const NodeExecStats& s) {
  return {s.node_name, s.op,       s.device,      s.thread_id,      s.start_ns, s.end_ns,
          s.output_bytes, s.step_id, s.peer_device, s.transfer_bytes, s.rank};
}
NodeExecStats StatsFromJson(const nlohmann::json& j) {
  NodeExecStats s;
  s.node_name = j.at(0).get<std::string>();
  s.op = j.at(1).get<std::string>();
  s.device = j.at(2).get<std::string>();
  s.thread_id = j.at(3).get<int>();
  s.start_ns = j.at(4).get<int64_t>();
  s.end_ns = j.at(5).get<int64_t>();
  s.output_bytes = j.at(6).get<int64_t>();
  s.step_id = j.at(7).get<int64_t>();
  s.peer_device = j.at(8).get<std::string>();
  s.transfer_bytes = j.at(9).get<int64_t>();
  s.rank = j.at(10).get<int>();
  return s;
}
}  // namespace

std::string EncodeControl(const ControlMessage& m) {
  if (IsCompact(m)) return EncodeCompact(m);
  nlohmann::json j = {{"type", m.type}, {"id", m.id}, {"step_id", m.step_id},
                      {"status", StatusToJson(m.status)}};
  if (!m.partitions.empty()) {
    nlohmann::json parts = nlohmann::json::object();
    for (const auto& [device, def] : m.partitions) parts[device] = GraphDefToJson(def);
    j["partitions"] = parts;
  }
  if (!m.devices.empty()) {
    nlohmann::json devs = nlohmann::json::array();
    for (const DeviceDesc& d : m.devices)
      devs.push_back({{"name", d.name}, {"type", d.type}, {"memory_limit_bytes", d.memory_limit_bytes}});
    j["devices"] = devs;
  }
  if (m.trace) j["trace"] = true;
  if (!m.stats.empty()) {
    nlohmann::json stats = nlohmann::json::array();
    for (const NodeExecStats& s : m.stats) stats.push_back(StatsToJson(s));
    j["stats"] = stats;
  }
  return j.dump();
}

StatusOr<ControlMessage> DecodeControl(const std::string& bytes) {
  if (!bytes.empty() && bytes[0] == kCompactMarker) return DecodeCompact(bytes);
  ControlMessage m;
  try {
    nlohmann::json j = nlohmann::json::parse(bytes);
    m.type = j.at("type").get<std::string>();
    m.id = j.at("id").get<int64_t>();
    m.step_id = j.at("step_id").get<int64_t>();
    m.status = StatusFromJson(j.at("status"));
    if (j.contains("partitions")) {
      for (auto& [device, def] : j["partitions"].items()) {
        auto g = GraphDefFromJson(def);
        if (!g.ok()) return g.status().WithPrefix("control message partition for " + device + ": ");
        m.partitions[device] = std::move(*g);
      }
    }
    if (j.contains("devices"))
      for (const auto& d : j["devices"])
        m.devices.push_back(DeviceDesc{d.at("name").get<std::string>(), d.at("type").get<std::string>(),
                                       d.at("memory_limit_bytes").get<int64_t>()});
    m.trace = j.value("trace", false);
    if (j.contains("stats"))
      for (const auto& s : j["stats"]) m.stats.push_back(StatsFromJson(s));
  } catch (const nlohmann::json::exception& e) {
    return DataLoss("malformed control message (", bytes.size(), " bytes): ", e.what());
  }
  return m;
}

}  // namespace fb::mpi
