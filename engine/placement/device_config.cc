#include "engine/placement/device_config.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/framework/device.h"
#include "engine/framework/device_name.h"
#include "engine/framework/input_file.h"

namespace fb {

const LinkDesc& LinkSet::Find(const std::string& src, const std::string& dst) const {
  for (const LinkDesc& l : links) {
    auto s = ParseDeviceName(src), d = ParseDeviceName(dst);
    auto ls = ParseDeviceName(l.src), ld = ParseDeviceName(l.dst);
    if (!s.ok() || !d.ok() || !ls.ok() || !ld.ok()) continue;
    if (DeviceNameMatches(*s, *ls) && DeviceNameMatches(*d, *ld)) return l;
  }
  return default_link;
}

namespace {

using json = nlohmann::json;

// Upper bounds of the config's numbers: beyond them a value is a typo, and the cost model's
// arithmetic (and the int64 / int conversions below) overflows.
constexpr double kMaxRate = 1e21;            // FLOP/s, bytes/s
constexpr double kMaxTimeNs = 1e12;          // latency, launch overhead: 1000 s
constexpr double kMaxMemoryBytes = 1e18;     // memory_limit_bytes
constexpr double kMaxDeviceCount = 9999;     // "count", as --devices cpu:N

// Reads a number field in [min, max] if present.
Status ReadNumber(const json& j, const char* key, const std::string& where, double* out,
                  double max, double min = 0) {
  if (!j.contains(key)) return Status::OK();
  const double v = j[key].is_number() ? j[key].get<double>() : std::nan("");
  if (!(v >= min && v <= max))
    return InvalidArgument(where, ": '", key, "' must be a number in [", min, ", ", max, "]");
  *out = v;
  return Status::OK();
}

Status ReadLink(const json& j, const std::string& where, LinkDesc* l) {
  if (!j.is_object()) return InvalidArgument(where, ": a link must be a JSON object");
  if (j.contains("src")) l->src = j["src"].get<std::string>();
  if (j.contains("dst")) l->dst = j["dst"].get<std::string>();
  for (const std::string& n : {l->src, l->dst}) {
    auto parsed = ParseDeviceName(n);
    if (!parsed.ok()) return InvalidArgument(where, ": ", parsed.status().message());
  }
  RETURN_IF_ERROR(ReadNumber(j, "latency_ns", where, &l->latency_ns, kMaxTimeNs));
  RETURN_IF_ERROR(
      ReadNumber(j, "bandwidth_bytes_per_s", where, &l->bandwidth_bytes_per_s, kMaxRate, 1));
  return Status::OK();
}

Status ReadLinks(const json& j, const std::string& source, LinkSet* links) {
  if (j.contains("default_link"))
    RETURN_IF_ERROR(ReadLink(j["default_link"], source + ": default_link", &links->default_link));
  if (!j.contains("links")) return Status::OK();
  if (!j["links"].is_array()) return InvalidArgument(source, ": 'links' must be an array");
  links->links.clear();
  for (size_t i = 0; i < j["links"].size(); ++i) {
    LinkDesc l;
    RETURN_IF_ERROR(ReadLink(j["links"][i], source + ": links[" + std::to_string(i) + "]", &l));
    links->links.push_back(l);
  }
  return Status::OK();
}

// Completes a partial name with /job:localhost/replica:0/task:0 and id 0.
StatusOr<ParsedDeviceName> CompleteName(const std::string& name, const std::string& where) {
  auto p = ParseDeviceName(name);
  if (!p.ok()) return InvalidArgument(where, ": ", p.status().message());
  if (!p->has_type) return InvalidArgument(where, ": device name '", name, "' has no device type");
  if (!p->has_job) p->has_job = true, p->job = "localhost";
  p->has_replica = p->has_task = p->has_id = true;
  return *p;
}

Status ReadDevice(const json& j, const std::string& where, DeviceSet* out) {
  if (!j.is_object() || !j.contains("name") || !j["name"].is_string())
    return InvalidArgument(where, ": a device needs a string 'name'");
  ASSIGN_OR_RETURN(ParsedDeviceName name, CompleteName(j["name"].get<std::string>(), where));
  DeviceDesc d;
  d.type = name.type;
  double mem = 0, count = 1;
  RETURN_IF_ERROR(ReadNumber(j, "memory_limit_bytes", where, &mem, kMaxMemoryBytes));
  RETURN_IF_ERROR(ReadNumber(j, "peak_flops_per_s", where, &d.peak_flops_per_s, kMaxRate, 1));
  RETURN_IF_ERROR(ReadNumber(j, "memory_bandwidth_bytes_per_s", where,
                             &d.memory_bandwidth_bytes_per_s, kMaxRate, 1));
  RETURN_IF_ERROR(ReadNumber(j, "launch_overhead_ns", where, &d.launch_overhead_ns, kMaxTimeNs));
  RETURN_IF_ERROR(ReadNumber(j, "count", where, &count, kMaxDeviceCount, 1));
  if (count != static_cast<int>(count))
    return InvalidArgument(where, ": 'count' must be a whole number, got ", count);
  d.memory_limit_bytes = static_cast<int64_t>(mem);
  for (int k = 0; k < static_cast<int>(count); ++k) {
    ParsedDeviceName n = name;
    n.id += k;
    d.name = n.ToString();
    out->push_back(d);
  }
  return Status::OK();
}

}  // namespace

StatusOr<PlatformDesc> ParsePlatformJson(const std::string& text, const std::string& source) {
  PlatformDesc p;
  try {
    json j = json::parse(text);
    if (!j.is_object() || !j.contains("devices") || !j["devices"].is_array())
      return InvalidArgument(source, ": expected an object with a 'devices' array");
    for (size_t i = 0; i < j["devices"].size(); ++i)
      RETURN_IF_ERROR(
          ReadDevice(j["devices"][i], source + ": devices[" + std::to_string(i) + "]", &p.devices));
    RETURN_IF_ERROR(ReadLinks(j, source, &p.links));
  } catch (const json::exception& e) {
    return InvalidArgument(source, ": ", e.what());
  }
  std::set<std::string> seen;
  for (const DeviceDesc& d : p.devices)
    if (!seen.insert(d.name).second) return InvalidArgument(source, ": duplicate device '", d.name, "'");
  if (p.devices.empty()) return InvalidArgument(source, ": no devices");
  return p;
}

namespace {
StatusOr<std::string> ReadText(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open '", path, "'");
  RETURN_IF_ERROR(CheckInputFile(path, what));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

StatusOr<PlatformDesc> ReadPlatformFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadText(path, "device config"));
  return ParsePlatformJson(text, path);
}

Status ReadLinkFile(const std::string& path, LinkSet* links) {
  ASSIGN_OR_RETURN(std::string text, ReadText(path, "link file"));
  try {
    return ReadLinks(json::parse(text), path, links);
  } catch (const json::exception& e) {
    return InvalidArgument(path, ": ", e.what());
  }
}

StatusOr<DevicesFlag> ParseDevicesFlag(const std::string& spec) {
  auto bad = [&] {
    return InvalidArgument("--devices '", spec, "': expected cpu:N or gpu:N with N in [1, 9999]");
  };
  size_t colon = spec.find(':');
  if (colon == std::string::npos) return bad();
  DevicesFlag flag;
  std::string type = spec.substr(0, colon), count = spec.substr(colon + 1);
  for (char& ch : type) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if ((type != "CPU" && type != "GPU") || count.empty() || count.size() > 4 ||
      count.find_first_not_of("0123456789") != std::string::npos)
    return bad();
  flag.type = type;
  flag.count = std::stoi(count);
  if (flag.count < 1) return bad();
  return flag;
}

Status ApplyDevicesFlag(const std::string& spec, DeviceOptions* options) {
  ASSIGN_OR_RETURN(DevicesFlag flag, ParseDevicesFlag(spec));
  options->num_cpu_devices = flag.type == "CPU" ? flag.count : 1;
  return Status::OK();
}

DeviceSet FlagDevices(const DevicesFlag& flag) {
  if (flag.type == "CPU") return LocalDevices("CPU", flag.count);
  DeviceSet set = LocalDevices("CPU", 1);
  for (DeviceDesc& d : LocalDevices("GPU", flag.count)) set.push_back(d);
  return set;
}

DeviceSet LocalDevices(const std::string& type, int n) {
  DeviceSet set;
  for (int i = 0; i < n; ++i) {
    DeviceDesc d;
    d.name = LocalDeviceName(type, i);
    d.type = type;
    set.push_back(d);
  }
  return set;
}

}  // namespace fb
