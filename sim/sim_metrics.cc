#include "sim/sim_metrics.h"

#include <algorithm>
#include <numeric>
#include <sstream>

namespace fb::sim {

namespace {

nlohmann::json ConfigJson(const SimRunOptions& o) {
  const WorkloadOptions& w = o.workload;
  return {{"replicas", w.replicas},
          {"ps", w.ps},
          {"mode", w.mode == SyncMode::kSync        ? "sync"
                   : w.mode == SyncMode::kAllreduce ? "allreduce"
                                                    : "async"},
          {"backup_workers", w.backup_workers},
          {"steps", w.steps},
          {"concurrent_steps", w.concurrent_steps},
          {"compression", w.compression},
          {"straggler_probability", w.straggler_probability},
          {"straggler_slowdown", w.straggler_slowdown},
          {"compute_noise_mean", w.compute_noise_mean},
          {"start_spread_s", w.start_spread_s},
          {"seed", w.seed},
          {"schedule", w.schedule},
          {"placer", w.placer},
          {"max_batch_s", o.max_batch_s}};
}

int64_t Get(const std::vector<int64_t>& v, size_t i) { return i < v.size() ? v[i] : 0; }

}  // namespace

nlohmann::json MetricsJson(const Simulation& sim, const SimResult& r, const SimRunOptions& o,
                           const std::string& cost_model) {
  nlohmann::json j;
  j["config"] = ConfigJson(o);
  j["config"]["platform"] = sim.platform_path();
  j["config"]["cost_model"] = cost_model;
  j["step_times_s"] = r.step_times_s;
  j["median_step_time_s"] = r.MedianStepTime();
  j["makespan_s"] = r.makespan_s;
  j["node_executions"] = r.node_executions;
  j["wall_s"] = r.wall_s;
  j["prepare_wall_s"] = r.prepare_wall_s;
  j["node_executions_per_wall_s"] = r.wall_s > 0 ? static_cast<double>(r.node_executions) / r.wall_s : 0;
  j["transfers"] = r.transfers;
  j["wire_bytes"] = r.wire_bytes;
  j["dropped_messages"] = r.dropped_messages;
  j["control_messages"] = r.control_messages;
  j["link_bytes"] = nlohmann::json::object();
  for (const auto& [link, bytes] : r.link_bytes)
    if (bytes > 0) j["link_bytes"][link] = bytes;
  j["devices"] = nlohmann::json::array();
  for (size_t d = 0; d < r.device_names.size(); ++d)
    if (r.device_busy_s[d] > 0)
      j["devices"].push_back({{"name", r.device_names[d]},
                              {"type", r.device_types[d]},
                              {"busy_s", r.device_busy_s[d]},
                              {"utilisation", r.Utilisation(static_cast<int>(d))},
                              {"peak_memory_bytes", Get(r.device_peak_bytes, d)},
                              {"memory_capacity_bytes", Get(r.device_capacity_bytes, d)}});
  if (!r.allreduce_algorithm.empty()) j["allreduce_algorithm"] = r.allreduce_algorithm;
  return j;
}

void AddValidation(const std::vector<double>& measured_step_s, nlohmann::json* metrics) {
  if (measured_step_s.empty()) return;
  std::vector<double> v = measured_step_s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  const double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  const double predicted = (*metrics)["median_step_time_s"].get<double>();
  (*metrics)["validation"] = {{"measured_steps", n},
                              {"measured_median_step_time_s", median},
                              {"measured_mean_step_time_s", mean},
                              {"error_median", predicted / median - 1}};
}

std::string FormatSummary(const nlohmann::json& m) {
  std::ostringstream s;
  s << "predicted median step time: " << m["median_step_time_s"].get<double>() * 1e3 << " ms over "
    << m["step_times_s"].size() << " steps (makespan " << m["makespan_s"].get<double>() << " s)\n"
    << "simulated " << m["node_executions"].get<int64_t>() << " node executions, "
    << m["transfers"].get<int64_t>() << " transfers (" << m["wire_bytes"].get<int64_t>()
    << " bytes) in " << m["wall_s"].get<double>() << " s wall after "
    << m["prepare_wall_s"].get<double>() << " s of placement and partitioning ("
    << m["node_executions_per_wall_s"].get<double>() << " node executions/s)\n";
  if (m.contains("validation")) {
    const auto& v = m["validation"];
    s << "measured in the trace: median step " << v["measured_median_step_time_s"].get<double>() * 1e3
      << " ms (mean " << v["measured_mean_step_time_s"].get<double>() * 1e3 << " ms) over "
      << v["measured_steps"].get<size_t>() << " steps; prediction error "
      << v["error_median"].get<double>() * 100 << " % (median)\n";
  }
  if (m.contains("allreduce_algorithm"))
    s << "allreduce algorithm: " << m["allreduce_algorithm"].get<std::string>() << "\n";
  size_t shown = 0;
  for (const auto& d : m["devices"]) {
    if (++shown > 8) {
      s << "  ... " << m["devices"].size() - 8 << " more devices\n";
      break;
    }
    s << "  " << d["name"].get<std::string>() << ": busy " << d["busy_s"].get<double>()
      << " s, utilisation " << d["utilisation"].get<double>() * 100 << " %, peak memory "
      << d["peak_memory_bytes"].get<int64_t>() << " bytes\n";
  }
  return s.str();
}

}  // namespace fb::sim
