#include "sim/op_time_scales.h"

#include <cmath>
#include <cstdlib>

#include <simgrid/s4u/Host.hpp>

namespace fb::sim {

StatusOr<std::map<std::string, double>> ParseOpTimeScales(
    const std::map<std::string, std::string>& properties, const std::string& host) {
  std::map<std::string, double> out;
  const std::string prefix = kOpTimeScalePrefix;
  for (const auto& [key, value] : properties) {
    if (key.rfind(prefix, 0) != 0) continue;
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(v) || !(v > 0) ||
        key.size() == prefix.size())
      return InvalidArgument("host '", host, "': property '", key,
                             "' must name an op type and hold a finite number > 0, got '",
                             value, "'");
    out[key.substr(prefix.size())] = v;
  }
  return out;
}

StatusOr<std::map<std::string, std::map<std::string, double>>> OpTimeScales(
    const std::vector<SimDevice>& devices) {
  std::map<std::string, std::map<std::string, double>> out;
  for (const SimDevice& d : devices) {
    if (d.host == nullptr) continue;
    std::map<std::string, std::string> props;
    if (const auto* p = d.host->get_properties())
      for (const auto& [k, v] : *p) props[k] = v;
    ASSIGN_OR_RETURN(auto scales, ParseOpTimeScales(props, d.host_name));
    if (!scales.empty()) out[d.desc.name] = std::move(scales);
  }
  return out;
}

SimCosts WithOpTimeScales(SimCosts costs,
                          std::map<std::string, std::map<std::string, double>> scales) {
  if (scales.empty()) return costs;
  costs.compute_s = [base = costs.compute_s, scales = std::move(scales)](const Node& n,
                                                                         const DeviceDesc& d) {
    const double s = base(n, d);
    auto dev = scales.find(d.name);
    if (dev == scales.end()) return s;
    auto op = dev->second.find(n.op());
    return op == dev->second.end() ? s : s * op->second;
  };
  return costs;
}

}  // namespace fb::sim
