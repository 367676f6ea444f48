#include "engine/framework/device_name.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace fb {

std::string ParsedDeviceName::ToString() const {
  std::ostringstream os;
  if (has_job) os << "/job:" << job;
  if (has_replica) os << "/replica:" << replica;
  if (has_task) os << "/task:" << task;
  if (has_type) os << "/device:" << type << ":" << (has_id ? std::to_string(id) : "*");
  return os.str();
}

namespace {
bool ParseInt(const std::string& s, int* out) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
  *out = std::stoi(s);
  return true;
}
std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

StatusOr<ParsedDeviceName> ParseDeviceName(const std::string& name) {
  ParsedDeviceName p;
  if (name.empty()) return p;
  auto bad = [&](const std::string& why) {
    return InvalidArgument("malformed device name '", name, "': ", why);
  };
  if (name[0] != '/') return bad("must start with '/'");
  std::vector<std::string> parts;
  std::stringstream ss(name.substr(1));
  for (std::string part; std::getline(ss, part, '/');) parts.push_back(part);
  for (const std::string& part : parts) {
    size_t c = part.find(':');
    if (c == std::string::npos) return bad("field '" + part + "' has no ':'");
    std::string key = part.substr(0, c), val = part.substr(c + 1);
    if (key == "job") {
      if (val.empty()) return bad("empty job");
      p.has_job = true, p.job = val;
    } else if (key == "replica") {
      if (!ParseInt(val, &p.replica)) return bad("replica must be a number");
      p.has_replica = true;
    } else if (key == "task") {
      if (!ParseInt(val, &p.task)) return bad("task must be a number");
      p.has_task = true;
    } else if (key == "device") {
      size_t c2 = val.find(':');
      p.has_type = true;
      p.type = Upper(val.substr(0, c2));
      if (p.type.empty()) return bad("empty device type");
      if (c2 != std::string::npos && val.substr(c2 + 1) != "*") {
        if (!ParseInt(val.substr(c2 + 1), &p.id)) return bad("device id must be a number or *");
        p.has_id = true;
      }
    } else if (key == "cpu" || key == "gpu" || key == "CPU" || key == "GPU") {
      p.has_type = true;
      p.type = Upper(key);
      if (val != "*") {
        if (!ParseInt(val, &p.id)) return bad("device id must be a number or *");
        p.has_id = true;
      }
    } else {
      return bad("unknown field '" + key + "'");
    }
  }
  return p;
}

bool DeviceNameMatches(const ParsedDeviceName& d, const ParsedDeviceName& c) {
  if (c.has_job && (!d.has_job || d.job != c.job)) return false;
  if (c.has_replica && (!d.has_replica || d.replica != c.replica)) return false;
  if (c.has_task && (!d.has_task || d.task != c.task)) return false;
  if (c.has_type && (!d.has_type || d.type != c.type)) return false;
  if (c.has_id && (!d.has_id || d.id != c.id)) return false;
  return true;
}

StatusOr<ParsedDeviceName> MergeDeviceNames(const ParsedDeviceName& a, const ParsedDeviceName& b) {
  ParsedDeviceName m = a;
  auto conflict = [&]() {
    return InvalidArgument("device constraints '", a.ToString(), "' and '", b.ToString(),
                           "' conflict");
  };
  if (b.has_job) {
    if (m.has_job && m.job != b.job) return conflict();
    m.has_job = true, m.job = b.job;
  }
  if (b.has_replica) {
    if (m.has_replica && m.replica != b.replica) return conflict();
    m.has_replica = true, m.replica = b.replica;
  }
  if (b.has_task) {
    if (m.has_task && m.task != b.task) return conflict();
    m.has_task = true, m.task = b.task;
  }
  if (b.has_type) {
    if (m.has_type && m.type != b.type) return conflict();
    m.has_type = true, m.type = b.type;
  }
  if (b.has_id) {
    if (m.has_id && m.id != b.id) return conflict();
    m.has_id = true, m.id = b.id;
  }
  return m;
}

std::string LocalDeviceName(const std::string& type, int id, const std::string& job, int task) {
  return "/job:" + job + "/replica:0/task:" + std::to_string(task) + "/device:" + type + ":" +
         std::to_string(id);
}

}  // namespace fb
