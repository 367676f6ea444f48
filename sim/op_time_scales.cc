#include "sim/op_time_scales.h"

#include <cmath>
#include <cstdlib>

#include <algorithm>

#include <simgrid/s4u/Host.hpp>

#include "engine/placement/cost_model.h"

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

namespace {

std::map<std::string, std::string> HostProperties(const SimDevice& d) {
  std::map<std::string, std::string> props;
  if (d.host != nullptr)
    if (const auto* p = d.host->get_properties())
      for (const auto& [k, v] : *p) props[k] = v;
  return props;
}

const OpRateCurve* Find(const std::map<std::string, OpRateCurve>& curves, const std::string& op) {
  auto it = curves.find(op);
  return it == curves.end() ? nullptr : &it->second;
}

}  // namespace

StatusOr<OpEfficiency> ParseOpEfficiency(const std::map<std::string, std::string>& properties,
                                         const std::string& host) {
  OpEfficiency e;
  ASSIGN_OR_RETURN(e.time_scale, ParseOpTimeScales(properties, host));
  for (const auto& [key, value] : properties) {
    for (const std::string prefix : {kOpFlopsRatePrefix, kOpBytesRatePrefix}) {
      if (key.rfind(prefix, 0) != 0) continue;
      if (key.size() == prefix.size())
        return InvalidArgument("host '", host, "': property '", key, "' must name an op type");
      ASSIGN_OR_RETURN(OpRateCurve c, ParseOpRateCurve(value, host, key));
      (prefix == kOpFlopsRatePrefix ? e.flops_rate : e.bytes_rate)[key.substr(prefix.size())] =
          std::move(c);
    }
  }
  return e;
}

StatusOr<std::map<std::string, OpEfficiency>> OpEfficiencies(
    const std::vector<SimDevice>& devices) {
  std::map<std::string, OpEfficiency> out;
  for (const SimDevice& d : devices) {
    if (d.host == nullptr) continue;
    ASSIGN_OR_RETURN(OpEfficiency e, ParseOpEfficiency(HostProperties(d), d.host_name));
    if (!e.empty()) out[d.desc.name] = std::move(e);
  }
  return out;
}

double EfficientComputeNs(const OpEfficiency& e, const std::string& op, const OpWork& work,
                          const DeviceDesc& device) {
  const OpRateCurve* f = Find(e.flops_rate, op);
  const OpRateCurve* b = Find(e.bytes_rate, op);
  double ns = 0;
  if ((f == nullptr && b == nullptr) || (work.flops <= 0 && work.bytes_accessed <= 0)) {
    ns = AnalyticComputeNs(work, device);
  } else {
    const bool compute_bound =
        work.flops > 0 && work.flops / device.peak_flops_per_s >=
                              work.bytes_accessed / device.memory_bandwidth_bytes_per_s;
    const double seconds =
        compute_bound ? work.flops / (f ? f->RateAt(work.flops) : device.peak_flops_per_s)
                      : work.bytes_accessed / (b ? b->RateAt(work.bytes_accessed)
                                                 : device.memory_bandwidth_bytes_per_s);
    ns = device.launch_overhead_ns + 1e9 * seconds;
  }
  auto s = e.time_scale.find(op);
  return s == e.time_scale.end() ? ns : ns * s->second;
}

SimCosts WithOpEfficiencies(SimCosts costs, std::map<std::string, OpEfficiency> efficiencies,
                            std::function<const OpWork*(const Node&)> work) {
  if (efficiencies.empty()) return costs;
  costs.compute_s = [base = costs.compute_s, effs = std::move(efficiencies),
                     work = std::move(work)](const Node& n, const DeviceDesc& d) {
    auto dev = effs.find(d.name);
    const OpWork* w = dev == effs.end() ? nullptr : work(n);
    if (w == nullptr) return base(n, d);
    return EfficientComputeNs(dev->second, n.op(), *w, d) * 1e-9;
  };
  return costs;
}

}  // namespace fb::sim
