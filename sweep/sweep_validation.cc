#include "sweep/sweep_validation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sweep/sweep_spec.h"

namespace fb::sweep {

double KendallTau(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  int64_t concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const double dx = x[i] - x[j], dy = y[i] - y[j];
      if (dx == 0 && dy == 0) continue;
      if (dx == 0) {
        ++ties_x;
      } else if (dy == 0) {
        ++ties_y;
      } else if ((dx > 0) == (dy > 0)) {
        ++concordant;
      } else {
        ++discordant;
      }
    }
  }
  const double denom = std::sqrt(static_cast<double>(concordant + discordant + ties_x) *
                                 static_cast<double>(concordant + discordant + ties_y));
  return denom > 0 ? static_cast<double>(concordant - discordant) / denom : 0;
}

namespace {

// Mean of `metric` (in seconds) over the successful rows of each point in `mode`.
std::map<int64_t, double> MeanByPoint(const std::vector<SweepRow>& rows, const std::string& mode,
                                      const std::string& metric) {
  std::map<int64_t, std::pair<double, int>> sums;
  const double scale = MetricSecondsPerUnit(metric);
  for (const SweepRow& r : rows) {
    if (r.mode != mode || !r.ok()) continue;
    const auto it = r.metrics.find(metric);
    if (it == r.metrics.end() || !it->is_number()) continue;
    auto& [sum, n] = sums[r.point];
    sum += it->get<double>() * scale;
    ++n;
  }
  std::map<int64_t, double> means;
  for (const auto& [p, sn] : sums) means[p] = sn.first / sn.second;
  return means;
}

}  // namespace

nlohmann::json ValidationReport(const std::vector<SweepRow>& rows, const std::string& sim_metric,
                                const std::string& real_metric) {
  const auto predicted = MeanByPoint(rows, "sim", sim_metric);
  const auto measured = MeanByPoint(rows, "real", real_metric);
  std::vector<double> pred, meas, abs_err;
  nlohmann::json points = nlohmann::json::array();
  for (const auto& [p, m] : measured) {
    const auto it = predicted.find(p);
    if (it == predicted.end() || m <= 0) continue;
    const double err = it->second / m - 1;
    pred.push_back(it->second);
    meas.push_back(m);
    abs_err.push_back(std::abs(err));
    points.push_back(
        {{"point", p}, {"predicted_s", it->second}, {"measured_s", m}, {"relative_error", err}});
  }
  nlohmann::json report = {{"sim_metric", sim_metric},
                           {"real_metric", real_metric},
                           {"pairs", pred.size()},
                           {"points", points}};
  if (abs_err.empty()) return report;
  double sum = 0;
  for (double e : abs_err) sum += e;
  std::vector<double> sorted = abs_err;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  report["mean_abs_relative_error"] = sum / static_cast<double>(n);
  report["median_abs_relative_error"] =
      n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  // One pair has no order to agree on: tau is undefined there, not 0.
  if (n >= 2) report["kendall_tau"] = KendallTau(pred, meas);
  return report;
}

std::string FormatValidation(const nlohmann::json& r) {
  if (r.value("pairs", 0) == 0)
    return fmt::format(
        "validation: no point has both a successful simulated run ({}) and a "
        "successful real run ({})",
        r.value("sim_metric", ""), r.value("real_metric", ""));
  const std::string tau = r.contains("kendall_tau")
                              ? fmt::format("{:.2f}", r["kendall_tau"].get<double>())
                              : "undefined (one point)";
  return fmt::format("validation: {} point{}, mean |error| {:.1f} %, median {:.1f} %, "
                     "Kendall tau {}",
                     r["pairs"].get<int64_t>(), r["pairs"].get<int64_t>() == 1 ? "" : "s",
                     100 * r["mean_abs_relative_error"].get<double>(),
                     100 * r["median_abs_relative_error"].get<double>(), tau);
}

}  // namespace fb::sweep
