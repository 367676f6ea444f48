#include "mpi/control_message.h"

#include <nlohmann/json.hpp>

namespace fb::mpi {

namespace {
nlohmann::json StatusToJson(const Status& s) {
  return {{"code", static_cast<int>(s.code())}, {"message", s.message()}};
}
Status StatusFromJson(const nlohmann::json& j) {
  auto code = static_cast<Code>(j.at("code").get<int>());
  return code == Code::kOk ? Status::OK() : Status(code, j.at("message").get<std::string>());
}
}  // namespace

std::string EncodeControl(const ControlMessage& m) {
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
  return j.dump();
}

StatusOr<ControlMessage> DecodeControl(const std::string& bytes) {
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
  } catch (const nlohmann::json::exception& e) {
    return DataLoss("malformed control message (", bytes.size(), " bytes): ", e.what());
  }
  return m;
}

}  // namespace fb::mpi
