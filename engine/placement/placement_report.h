#pragma once
// Runs placers on one graph and summarises each placement the way `flowbench place` and the
// placer benchmark report it: the placer's own run time, the cost model's predicted step time,
// bytes crossing devices and peak memory per device (step_prediction.h).
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/placement/step_prediction.h"

namespace fb {

struct PlacerRun {
  std::string placer;
  double placer_seconds = 0;  // wall time of ComputePlacement (constraints included)
  Placement placement;
  StepPrediction prediction;
};

// Places `g` with `placer` and predicts a step. Errors: those of ComputePlacement/PredictStep.
StatusOr<PlacerRun> EvaluatePlacer(const Graph& g, const CostModel& cost, const std::string& placer,
                                   const PlacerOptions& options = {});

// {"placer", "placer_seconds", "predicted_step_ns", "bytes_crossing", "num_transfers",
//  "devices": [{"name", "nodes", "busy_ns", "peak_bytes"}]}
nlohmann::json PlacerRunToJson(const PlacerRun& run, const CostModel& cost);
// A fixed-width table, one row per run, with per-device node counts and peak MiB.
std::string FormatPlacerRuns(const std::vector<PlacerRun>& runs, const CostModel& cost);

}  // namespace fb
