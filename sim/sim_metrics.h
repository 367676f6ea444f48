#pragma once
// The numbers a simulation predicts, as JSON (`flowbench sim --metrics-json`) and as a short
// text summary:
//   {"config": {...the run's options...}, "platform": path, "cost_model": "analytic",
//    "step_times_s": [...], "median_step_time_s": x, "makespan_s": x,
//    "node_executions": n, "wall_s": x (replay), "prepare_wall_s": x (placement, partitioning),
//    "node_executions_per_wall_s": x (replay),
//    "transfers": n, "wire_bytes": n, "dropped_messages": n,
//    "link_bytes": {"link": bytes, ...}            (links that carried data)
//    "devices": [{"name", "type", "busy_s", "utilisation"}, ...],
//    "validation": {...}}                          (AddValidation, measured cost models only)
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/simulator.h"

namespace fb::sim {

nlohmann::json MetricsJson(const Simulation& sim, const SimResult& result,
                           const SimRunOptions& options, const std::string& cost_model);
std::string FormatSummary(const nlohmann::json& metrics);

// Adds the prediction's error against the real run whose trace gave the measured costs
// (issue 6, validation): {"measured_steps", "measured_median_step_time_s",
// "measured_mean_step_time_s", "error_median" (predicted / measured median - 1)}. Nothing when
// `measured_step_s` is empty.
void AddValidation(const std::vector<double>& measured_step_s, nlohmann::json* metrics);

}  // namespace fb::sim
