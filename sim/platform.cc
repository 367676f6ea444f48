#include "sim/platform.h"

#include <simgrid/s4u.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "engine/framework/device_name.h"

namespace sg4 = simgrid::s4u;

namespace fb::sim {
namespace {

// A numeric host property, or `fallback` when absent. InvalidArgument naming host and property.
StatusOr<double> NumberProperty(const sg4::Host& h, const char* key, double fallback) {
  const char* v = h.get_property(key);
  if (v == nullptr) return fallback;
  char* end = nullptr;
  const double x = std::strtod(v, &end);
  if (end == v || *end != '\0' || x < 0)
    return InvalidArgument("host '", h.get_name(), "': property ", key,
                           " must be a non-negative number, got '", v, "'");
  return x;
}

std::string StringProperty(const sg4::Host& h, const char* key, const std::string& fallback) {
  const char* v = h.get_property(key);
  return v ? std::string(v) : fallback;
}

}  // namespace

StatusOr<std::vector<SimDevice>> PlatformDevices(const sg4::Engine& engine) {
  std::vector<SimDevice> out;
  for (sg4::Host* h : engine.get_all_hosts()) {
    const std::string type = StringProperty(*h, "device_type", "CPU");
    if (type == "none") continue;
    SimDevice d;
    d.host = h;
    d.host_name = h->get_name();
    d.model = StringProperty(*h, "device_model", "");
    d.desc.type = type;
    if (!(h->get_speed() > 0))
      return InvalidArgument("host '", h->get_name(), "' has speed ", h->get_speed(),
                             "; a device needs a positive FLOP/s speed");
    d.desc.peak_flops_per_s = h->get_speed();
    ASSIGN_OR_RETURN(d.desc.memory_bandwidth_bytes_per_s,
                     NumberProperty(*h, "memory_bandwidth_bytes_per_s",
                                    d.desc.memory_bandwidth_bytes_per_s));
    if (!(d.desc.memory_bandwidth_bytes_per_s > 0))
      return InvalidArgument("host '", h->get_name(), "': memory_bandwidth_bytes_per_s must be > 0");
    ASSIGN_OR_RETURN(d.desc.launch_overhead_ns,
                     NumberProperty(*h, "launch_overhead_ns", d.desc.launch_overhead_ns));
    if (!(std::isfinite(d.desc.launch_overhead_ns) && d.desc.launch_overhead_ns >= 0))
      return InvalidArgument("host '", h->get_name(), "': launch_overhead_ns is ",
                             d.desc.launch_overhead_ns, "; expected a finite value >= 0");
    ASSIGN_OR_RETURN(double mem, NumberProperty(*h, "memory_bytes", 0));
    if (!(mem >= 0 && mem < 9.2e18))  // int64_t bytes; NaN fails too
      return InvalidArgument("host '", h->get_name(), "': memory_bytes is ", mem,
                             "; expected 0 (no limit) up to 9.2e18 bytes");
    d.desc.memory_limit_bytes = static_cast<int64_t>(mem);
    ASSIGN_OR_RETURN(d.cores, ReadCoreShare(*h, engine));
    ASSIGN_OR_RETURN(d.message_cost,
                     ParseMessageCost(h->get_name(), h->get_property("message_overhead_ns"),
                                      h->get_property("serialize_bytes_per_s"),
                                      h->get_property("message_latency_ns"),
                                      h->get_property("send_serialize_bytes_per_s")));
    d.desc.name = StringProperty(
        *h, "device_name",
        LocalDeviceName(type, 0, "worker", static_cast<int>(out.size())));
    ASSIGN_OR_RETURN(ParsedDeviceName parsed, ParseDeviceName(d.desc.name));
    (void)parsed;
    out.push_back(std::move(d));
  }
  if (out.empty()) return FailedPrecondition("the platform has no device host");
  return out;
}

Status CheckPlatformResources(const sg4::Engine& engine, const std::string& path) {
  for (const sg4::Link* l : engine.get_all_links()) {
    const double bw = l->get_bandwidth(), lat = l->get_latency();
    if (!(std::isfinite(bw) && bw > 0) || !(std::isfinite(lat) && lat >= 0))
      return InvalidArgument("platform file '", path, "': link '", l->get_name(), "' has bandwidth ",
                             bw, " bytes/s and latency ", lat,
                             " s; expected a finite bandwidth > 0 and latency >= 0");
  }
  for (const sg4::Host* h : engine.get_all_hosts())
    if (!(std::isfinite(h->get_speed()) && h->get_speed() > 0))
      return InvalidArgument("platform file '", path, "': host '", h->get_name(), "' has speed ",
                             h->get_speed(), " FLOP/s; expected a finite speed > 0");
  return Status::OK();
}

StatusOr<std::string> ResolvePlatformPath(const std::string& name) {
  namespace fs = std::filesystem;
  std::error_code ec;  // exists() without it throws on e.g. a name too long
  if (name.empty()) return InvalidArgument("the platform file name is empty");
  if (fs::exists(name, ec)) return name;
  const std::string dir = FB_SIM_PLATFORM_DIR;
  for (const std::string& p : {dir + "/" + name, dir + "/" + name + ".xml"})
    if (fs::exists(p, ec)) return p;
  return NotFound("platform file '", name, "' does not exist (nor does ", dir, "/", name,
                  "[.xml])");
}

}  // namespace fb::sim
