#pragma once
// How well a sweep's simulated points predict its real ones (`--validate K`, mode both): for
// every point with a successful simulated run and a successful real run, the predicted and the
// measured step time (means over repetitions, in seconds), their relative error and Kendall's
// rank correlation over the points.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_journal.h"

namespace fb::sweep {

// Kendall's tau-b of paired samples (ties in either variable handled as in Kendall 1945);
// 0 when fewer than two pairs or when one variable is constant. O(n^2).
double KendallTau(const std::vector<double>& x, const std::vector<double>& y);

// {"sim_metric", "real_metric", "pairs", "mean_abs_relative_error",
//  "median_abs_relative_error", "kendall_tau",
//  "points": [{"point", "predicted_s", "measured_s", "relative_error"}, ...]}.
// The metrics are read from each row's flattened metrics and scaled to seconds by their names
// (MetricSecondsPerUnit). "pairs" is 0 when no point has both runs; "kendall_tau" is left out
// with fewer than two pairs (undefined there, not 0).
nlohmann::json ValidationReport(const std::vector<SweepRow>& rows, const std::string& sim_metric,
                                const std::string& real_metric);

// "validation: 5 points, mean |error| 12.3 %, median 10.1 %, Kendall tau 0.80" (one line).
std::string FormatValidation(const nlohmann::json& report);

}  // namespace fb::sweep
