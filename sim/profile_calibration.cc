#include "sim/profile_calibration.h"

#include <algorithm>
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
  // Per configuration: the roofline's sum over its nodes against its measured median step.
  std::map<std::tuple<std::string, int64_t>, double> sums;
  for (const ProfilePoint& p : profile.points)
    if (p.threads == threads) sums[{p.model, p.batch}] += RooflineNs(p, c);
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

}  // namespace fb::sim
