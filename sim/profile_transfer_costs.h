#pragma once
// The transfer and conversion costs of a profile cost model (sim/profile_cost_model.h) as the
// simulator's SimCosts (sim/program.h): between devices of one process, per transfer and per
// conversion of --compression. Kept apart from sim/profile_sim_costs.cc (the kernels' costs).
#include <string>

#include "sim/byte_cost_curve.h"
#include "sim/profile_cost_model.h"
#include "sim/program.h"

namespace fb::sim {

// The curves (seconds against bytes) of `executor`'s schema-5 transfer points; empty curves
// when it has none.
struct TransferCurves {
  ByteCostCurve transfer_s, compress_s, decompress_s;
};
TransferCurves TransferCurvesOf(const ProfileExecutor& executor);

// Sets `costs`' in-process transfer and compression fields from `pm` (its thread count's
// executor row): the schema-5 curves where the profile has transfer points (the linear fields
// then 0), else the schema-4 linear costs (0 for older profiles). Nothing measured is used with
// step-costs=off (ProfileCostModel::uses_step_costs), as for the other executor costs.
void SetProfileTransferCosts(const ProfileCostModel& pm, SimCosts* costs);

// For the cost model's description: what one transfer and one conversion cost, e.g. "3.5 us at
// 1 KiB to 1.2 ms at 4 MiB per transfer between devices of one process (4 devices probed),
// compression 0.4 us to 1.2 ms + 0.3 us to 0.7 ms"; the schema-4 linear text without points.
std::string TransferCostsDescription(const ProfileCostModel& pm);

}  // namespace fb::sim
