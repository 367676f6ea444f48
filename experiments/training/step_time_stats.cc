#include "experiments/training/step_time_stats.h"

#include <algorithm>
#include <cmath>

namespace fb::experiments {

double Quantile(std::vector<double> values, double q) {
  FB_CHECK(!values.empty()) << "Quantile of no values";
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

StatusOr<StepTimeStats> SummarizeStepTimes(const std::vector<double>& step_ms,
                                           int64_t examples_per_step) {
  if (step_ms.empty()) return InvalidArgument("no timed steps to summarize");
  if (examples_per_step < 1) {
    return InvalidArgument("examples per step must be >= 1, got ", examples_per_step);
  }
  std::vector<double> speeds;
  double sum_ms = 0;
  for (size_t i = 0; i < step_ms.size(); ++i) {
    if (!std::isfinite(step_ms[i]) || step_ms[i] <= 0) {
      return InvalidArgument("step ", i, " took ", step_ms[i], " ms: expected a positive time");
    }
    sum_ms += step_ms[i];
    speeds.push_back(1e3 * static_cast<double>(examples_per_step) / step_ms[i]);
  }
  const double n = static_cast<double>(step_ms.size());
  StepTimeStats s;
  s.steps = static_cast<int64_t>(step_ms.size());
  s.ms_median = Quantile(step_ms, 0.5);
  s.ms_p10 = Quantile(step_ms, 0.1);
  s.ms_p90 = Quantile(step_ms, 0.9);
  s.ms_mean = sum_ms / n;
  double mean = 0;
  for (double v : speeds) mean += v / n;
  double var = 0;
  for (double v : speeds) var += (v - mean) * (v - mean) / n;
  const double median_speed = Quantile(speeds, 0.5);
  std::vector<double> deviations;
  for (double v : speeds) deviations.push_back(std::abs(v - median_speed));
  s.examples_per_sec_mean = mean;
  s.examples_per_sec_uncertainty = std::sqrt(var) / std::sqrt(n);
  s.examples_per_sec_jitter = 1.4826 * Quantile(deviations, 0.5);
  s.examples_per_sec_median = 1e3 * static_cast<double>(examples_per_step) / s.ms_median;
  return s;
}

}  // namespace fb::experiments
