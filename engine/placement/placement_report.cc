#include "engine/placement/placement_report.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

namespace fb {

StatusOr<PlacerRun> EvaluatePlacer(const Graph& g, const CostModel& cost, const std::string& placer,
                                   const PlacerOptions& options) {
  PlacerRun run;
  run.placer = placer;
  auto start = std::chrono::steady_clock::now();
  ASSIGN_OR_RETURN(run.placement, ComputePlacement(g, cost, placer, options));
  run.placer_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSIGN_OR_RETURN(run.prediction, PredictStep(g, cost, run.placement));
  return run;
}

nlohmann::json PlacerRunToJson(const PlacerRun& run, const CostModel& cost) {
  nlohmann::json devices = nlohmann::json::array();
  for (int d = 0; d < cost.num_devices(); ++d) {
    size_t i = static_cast<size_t>(d);
    devices.push_back({{"name", cost.devices()[i].name},
                       {"nodes", run.prediction.num_nodes[i]},
                       {"busy_ns", run.prediction.busy_ns[i]},
                       {"peak_bytes", run.prediction.peak_bytes[i]}});
  }
  return {{"placer", run.placer},
          {"placer_seconds", run.placer_seconds},
          {"predicted_step_ns", run.prediction.step_ns},
          {"bytes_crossing", run.prediction.bytes_crossing},
          {"num_transfers", run.prediction.num_transfers},
          {"devices", devices}};
}

std::string FormatPlacerRuns(const std::vector<PlacerRun>& runs, const CostModel& cost) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof(line), "%-12s %12s %14s %14s %10s  %s\n", "placer", "placer_ms",
                "step_ms(pred)", "MiB_crossing", "transfers", "per device: nodes / peak MiB");
  os << line;
  for (const PlacerRun& r : runs) {
    std::snprintf(line, sizeof(line), "%-12s %12.2f %14.4f %14.3f %10d ", r.placer.c_str(),
                  r.placer_seconds * 1e3, r.prediction.step_ns * 1e-6,
                  static_cast<double>(r.prediction.bytes_crossing) / (1 << 20),
                  r.prediction.num_transfers);
    os << line;
    for (int d = 0; d < cost.num_devices(); ++d) {
      size_t i = static_cast<size_t>(d);
      std::snprintf(line, sizeof(line), " %d/%.2f", r.prediction.num_nodes[i],
                    static_cast<double>(r.prediction.peak_bytes[i]) / (1 << 20));
      os << line;
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace fb
