#include "sim/profile_calibration.h"

#include <algorithm>
#include <sstream>

#include "sim/op_time_scales.h"
#include "sim/platform_generator.h"
#include <map>
#include <tuple>

namespace fb::sim {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double RooflineNs(const ProfilePoint& p, const CpuCalibration& c) {
  return c.launch_overhead_ns + 1e9 * std::max(p.flops / c.flops_per_s,
                                               p.bytes / c.memory_bandwidth_bytes_per_s);
}

}  // namespace

StatusOr<CpuCalibration> CalibrateCpu(const Profile& profile, int threads,
                                      const std::string& path) {
  if (profile.device_type != "CPU")
    return FailedPrecondition(path, ": a profile of ", profile.device_type, " '", profile.device,
                              "'; sim-platform profile: calibrates a CPU device (predict the GPU "
                              "with --cost-model profile:", path, " instead)");
  std::vector<double> no_work;
  for (const ProfilePoint& p : profile.points)
    if (p.threads == threads && p.flops == 0 && p.bytes == 0) no_work.push_back(p.time_ns);
  CpuCalibration c;
  c.launch_overhead_ns = no_work.empty() ? 1000 : Median(no_work);
  double flops = 0, flops_ns = 0, bytes = 0, bytes_ns = 0;
  for (const ProfilePoint& p : profile.points) {
    if (p.threads != threads || (p.flops == 0 && p.bytes == 0)) continue;
    const double ns = std::max(p.time_ns - c.launch_overhead_ns, 1.0);
    if (p.flops > 0 && p.flops >= p.bytes) flops += p.flops, flops_ns += ns;
    else bytes += p.bytes, bytes_ns += ns;
  }
  if (flops_ns <= 0 || bytes_ns <= 0)
    return InvalidArgument("profile '", path, "': no compute-bound or no memory-bound node "
                           "measured with ", threads, " threads, cannot calibrate a roofline");
  c.flops_per_s = flops / flops_ns * 1e9;
  c.memory_bandwidth_bytes_per_s = bytes / bytes_ns * 1e9;
  std::map<std::string, std::pair<double, double>> per_op;  // (measured, roofline) ns
  for (const ProfilePoint& p : profile.points) {
    if (p.threads != threads) continue;
    per_op[p.op].first += p.time_ns;
    per_op[p.op].second += RooflineNs(p, c);
  }
  for (const auto& [op, t] : per_op)
    if (t.first > 0 && t.second > 0) c.op_time_scale[op] = t.first / t.second;
  // Per configuration: the scaled roofline's sum over its nodes against its median step.
  std::map<std::tuple<std::string, int64_t>, double> sums;
  for (const ProfilePoint& p : profile.points) {
    auto s = c.op_time_scale.find(p.op);
    if (p.threads == threads)
      sums[{p.model, p.batch}] += RooflineNs(p, c) * (s == c.op_time_scale.end() ? 1 : s->second);
  }
  std::vector<double> ratios;
  for (const ProfileStep& s : profile.steps) {
    auto it = sums.find({s.model, s.batch});
    if (s.threads == threads && it != sums.end() && it->second > 0 && s.median_step_ns > 0)
      ratios.push_back(s.median_step_ns / it->second);
  }
  if (ratios.empty())
    return InvalidArgument("profile '", path, "': no measured step with ", threads, " threads");
  c.configurations = static_cast<int>(ratios.size());
  c.step_scale = Median(ratios);
  c.launch_overhead_ns *= c.step_scale;
  c.flops_per_s /= c.step_scale;
  c.memory_bandwidth_bytes_per_s /= c.step_scale;
  return c;
}

StatusOr<std::string> CalibratedCpuXml(const CpuCalibration& c) {
  ASSIGN_OR_RETURN(std::string xml, SingleCpuXml("cpu0", c.flops_per_s,
                                                 c.memory_bandwidth_bytes_per_s,
                                                 c.launch_overhead_ns));
  std::ostringstream props;
  props.precision(4);
  for (const auto& [op, scale] : c.op_time_scale)
    props << "      <prop id=\"" << kOpTimeScalePrefix << op << "\" value=\"" << scale << "\"/>\n";
  const size_t end = xml.find("    </host>");
  if (end == std::string::npos) return Internal("generated platform has no </host>");
  xml.insert(end, props.str());
  return xml;
}

}  // namespace fb::sim
