#include "sim/profile_calibration.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "sim/platform_generator.h"

namespace fb::sim {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// (work, ns) pairs -> one knot per half-decade of work: (geometric mean work, sum work / sum s).
OpRateCurve FitCurve(std::vector<std::pair<double, double>> work_ns) {
  std::sort(work_ns.begin(), work_ns.end());
  OpRateCurve c;
  for (size_t i = 0; i < work_ns.size();) {
    const double bin = std::floor(2 * std::log10(work_ns[i].first));
    double log_sum = 0, work = 0, ns = 0;
    size_t j = i;
    for (; j < work_ns.size() && std::floor(2 * std::log10(work_ns[j].first)) == bin; ++j)
      log_sum += std::log(work_ns[j].first), work += work_ns[j].first, ns += work_ns[j].second;
    const double w = std::exp(log_sum / static_cast<double>(j - i));
    if (!c.knots.empty() && w < c.knots.back().first * 1.01) {  // merge near-equal knots
      c.knots.back().second = 0.5 * (c.knots.back().second + work / ns * 1e9);
    } else {
      c.knots.emplace_back(w, work / ns * 1e9);
    }
    i = j;
  }
  return c;
}

bool ComputeBound(const ProfilePoint& p, double flops_per_s, double bytes_per_s) {
  return p.flops > 0 && p.flops / flops_per_s >= p.bytes / bytes_per_s;
}

}  // namespace

StatusOr<Profile> MergeProfiles(const std::vector<std::pair<std::string, Profile>>& profiles) {
  if (profiles.empty()) return InvalidArgument("no profile to merge");
  Profile out = profiles.front().second;
  std::map<std::tuple<std::string, int64_t, int32_t>, std::string> seen;
  for (const auto& [path, p] : profiles) {
    if (p.device_type != out.device_type)
      return InvalidArgument("profile '", path, "' is of a ", p.device_type, " device, profile '",
                             profiles.front().first, "' of a ", out.device_type, " device");
    for (const ProfileStep& s : p.steps) {
      auto [it, fresh] = seen.emplace(std::make_tuple(s.model, s.batch, s.threads), path);
      if (!fresh)
        return InvalidArgument("profiles '", it->second, "' and '", path, "' both hold ",
                               s.model, " at batch ", s.batch, " with ", s.threads, " threads");
    }
    if (&p == &profiles.front().second) continue;
    out.points.insert(out.points.end(), p.points.begin(), p.points.end());
    out.steps.insert(out.steps.end(), p.steps.begin(), p.steps.end());
    out.executor.insert(out.executor.end(), p.executor.begin(), p.executor.end());
  }
  return out;
}

StatusOr<CpuCalibration> FitOpEfficiency(const std::vector<const ProfilePoint*>& points,
                                         const std::string& path) {
  std::vector<double> no_work;
  for (const ProfilePoint* p : points)
    if (p->flops == 0 && p->bytes == 0) no_work.push_back(p->time_ns);
  CpuCalibration c;
  c.launch_overhead_ns = no_work.empty() ? 1000 : Median(no_work);
  double flops = 0, flops_ns = 0, bytes = 0, bytes_ns = 0;
  for (const ProfilePoint* p : points) {
    if (p->flops == 0 && p->bytes == 0) continue;
    const double ns = std::max(p->time_ns - c.launch_overhead_ns, 1.0);
    if (p->flops > 0 && p->flops >= p->bytes) flops += p->flops, flops_ns += ns;
    else bytes += p->bytes, bytes_ns += ns;
  }
  if (flops_ns <= 0 || bytes_ns <= 0)
    return InvalidArgument("profile '", path, "': no compute-bound or no memory-bound node "
                           "measured, cannot calibrate a roofline");
  c.flops_per_s = flops / flops_ns * 1e9;
  c.memory_bandwidth_bytes_per_s = bytes / bytes_ns * 1e9;
  // Per op type: (work, ns) of its compute-bound and of its memory-bound nodes; ops without work.
  std::map<std::string, std::vector<std::pair<double, double>>> by_flops, by_bytes;
  std::map<std::string, std::pair<double, int>> no_work_ns;
  std::set<std::string> with_work;
  for (const ProfilePoint* p : points) {
    const double ns = std::max(p->time_ns - c.launch_overhead_ns, 1.0);
    if (p->flops == 0 && p->bytes == 0) {
      no_work_ns[p->op].first += p->time_ns;
      ++no_work_ns[p->op].second;
    } else if (ComputeBound(*p, c.flops_per_s, c.memory_bandwidth_bytes_per_s)) {
      by_flops[p->op].emplace_back(p->flops, ns);
    } else {
      by_bytes[p->op].emplace_back(p->bytes, ns);
    }
    if (p->flops != 0 || p->bytes != 0) with_work.insert(p->op);
  }
  for (auto& [op, v] : by_flops) c.op_flops_rate[op] = FitCurve(std::move(v));
  for (auto& [op, v] : by_bytes) c.op_bytes_rate[op] = FitCurve(std::move(v));
  for (const auto& [op, t] : no_work_ns)
    if (!with_work.count(op) && t.first > 0)
      c.op_time_scale[op] = t.first / (t.second * c.launch_overhead_ns);
  return c;
}

DeviceDesc CalibratedDevice(const CpuCalibration& c) {
  DeviceDesc d;
  d.type = "CPU";
  d.peak_flops_per_s = c.flops_per_s;
  d.memory_bandwidth_bytes_per_s = c.memory_bandwidth_bytes_per_s;
  d.launch_overhead_ns = c.launch_overhead_ns;
  return d;
}

OpEfficiency CalibratedEfficiency(const CpuCalibration& c) {
  OpEfficiency e;
  e.time_scale = c.op_time_scale;
  e.flops_rate = c.op_flops_rate;
  e.bytes_rate = c.op_bytes_rate;
  return e;
}

StatusOr<CpuCalibration> CalibrateCpu(const Profile& profile, int threads,
                                      const std::string& path) {
  if (profile.device_type != "CPU")
    return FailedPrecondition(path, ": a profile of ", profile.device_type, " '", profile.device,
                              "'; sim-platform profile: calibrates a CPU device (predict the GPU "
                              "with --cost-model profile:", path, " instead)");
  std::vector<const ProfilePoint*> points;
  for (const ProfilePoint& p : profile.points)
    if (p.threads == threads) points.push_back(&p);
  auto fitted = FitOpEfficiency(points, path);
  if (!fitted.ok())
    return InvalidArgument(fitted.status().message(), " with ", threads, " threads");
  CpuCalibration c = std::move(*fitted);
  // Per configuration: the model's sum over its nodes against its median step.
  const DeviceDesc device = CalibratedDevice(c);
  const OpEfficiency eff = CalibratedEfficiency(c);
  std::map<std::tuple<std::string, int64_t>, double> sums;
  for (const ProfilePoint* p : points)
    sums[{p->model, p->batch}] += EfficientComputeNs(eff, p->op, OpWork{p->flops, p->bytes},
                                                     device);
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
  for (auto* curves : {&c.op_flops_rate, &c.op_bytes_rate})
    for (auto& [op, curve] : *curves)
      for (auto& knot : curve.knots) knot.second /= c.step_scale;
  return c;
}

StatusOr<std::string> CalibratedCpuXml(const CpuCalibration& c, const std::string& source) {
  if (source.find("--") != std::string::npos)
    return InvalidArgument("calibration source '", source, "' must not contain '--'");
  ASSIGN_OR_RETURN(std::string xml, SingleCpuXml("cpu0", c.flops_per_s,
                                                 c.memory_bandwidth_bytes_per_s,
                                                 c.launch_overhead_ns));
  std::ostringstream note;
  note << "<!-- Calibrated from " << (source.empty() ? "a profile" : source) << " over "
       << c.configurations << " configurations (sim/profile_calibration.h).\n"
       << "     Analytic time of a node with work on cpu0 (sim/op_time_scales.h "
          "EfficientComputeNs):\n"
       << "     launch_overhead_ns + 1e9 * (flops / speed >= bytes / memory_bandwidth_bytes_per_s\n"
       << "     ? flops / F(flops) : bytes / B(bytes)), F and B the op type's op_flops_per_s and\n"
       << "     op_bytes_per_s curves (WORK:RATE knots, log-log interpolation, end rates beyond),\n"
       << "     else speed and bandwidth; times op_time_scale:OP where given. Step scale k = "
       << c.step_scale << ". -->\n";
  if (const size_t platform = xml.find("<platform"); platform != std::string::npos)
    xml.insert(platform, note.str());
  std::ostringstream props;
  props.precision(4);
  for (const auto& [op, scale] : c.op_time_scale)
    props << "      <prop id=\"" << kOpTimeScalePrefix << op << "\" value=\"" << scale << "\"/>\n";
  for (const auto& [op, curve] : c.op_flops_rate)
    props << "      <prop id=\"" << kOpFlopsRatePrefix << op << "\" value=\""
          << FormatOpRateCurve(curve) << "\"/>\n";
  for (const auto& [op, curve] : c.op_bytes_rate)
    props << "      <prop id=\"" << kOpBytesRatePrefix << op << "\" value=\""
          << FormatOpRateCurve(curve) << "\"/>\n";
  const size_t end = xml.find("    </host>");
  if (end == std::string::npos) return Internal("generated platform has no </host>");
  xml.insert(end, props.str());
  return xml;
}

}  // namespace fb::sim
