#include "sim/profile_transfer_costs.h"

#include <sstream>

#include "sim/profile.h"

namespace fb::sim {
namespace {

// "A us at B KiB to C us at D KiB".
std::string Range(const ByteCostCurve& ns) {
  std::ostringstream s;
  s << ns.points.front().second * 1e-3 << " us at " << ns.points.front().first / 1024
    << " KiB to " << ns.points.back().second * 1e-3 << " us at "
    << ns.points.back().first / 1024 << " KiB";
  return s.str();
}

}  // namespace

TransferCurves TransferCurvesOf(const ProfileExecutor& executor) {
  TransferCurves c;
  for (const ProfileTransferPoint& t : executor.transfer_points) {
    c.transfer_s.points.emplace_back(t.bytes, t.transfer_ns * 1e-9);
    c.compress_s.points.emplace_back(t.bytes, t.compress_ns * 1e-9);
    c.decompress_s.points.emplace_back(t.bytes, t.decompress_ns * 1e-9);
  }
  return c;
}

void SetProfileTransferCosts(const ProfileCostModel& pm, SimCosts* costs) {
  if (pm.uses_step_costs() && !pm.executor().transfer_points.empty()) {
    TransferCurves c = TransferCurvesOf(pm.executor());
    costs->in_process_transfer_curve_s = std::move(c.transfer_s);
    costs->compress_curve_s = std::move(c.compress_s);
    costs->decompress_curve_s = std::move(c.decompress_s);
    costs->in_process_transfer_s = costs->in_process_transfer_s_per_byte = 0;
    costs->compress_s_per_byte = costs->decompress_s_per_byte = 0;
    return;
  }
  costs->in_process_transfer_s = pm.InProcessTransferNs() * 1e-9;
  costs->in_process_transfer_s_per_byte = pm.InProcessTransferNsPerByte() * 1e-9;
  costs->in_process_transfer_free_bytes = kTransferProbeBytes;
  costs->compress_s_per_byte = pm.CompressNsPerByte() * 1e-9;
  costs->decompress_s_per_byte = pm.DecompressNsPerByte() * 1e-9;
}

std::string TransferCostsDescription(const ProfileCostModel& pm) {
  std::ostringstream s;
  const ProfileExecutor& e = pm.executor();
  if (pm.uses_step_costs() && !e.transfer_points.empty()) {
    const TransferCurves c = TransferCurvesOf(e);
    s << Range(c.transfer_s.Scaled(1e9)) << " per transfer between devices of one process ("
      << e.transfer_points.front().devices << " devices probed), compression "
      << Range(c.compress_s.Scaled(1e9)) << " + " << Range(c.decompress_s.Scaled(1e9));
    return s.str();
  }
  s << pm.InProcessTransferNs() * 1e-3 << " us + " << pm.InProcessTransferNsPerByte()
    << " ns per byte beyond " << kTransferProbeBytes
    << " per transfer between devices of one process, " << pm.CompressNsPerByte() << " + "
    << pm.DecompressNsPerByte() << " ns per byte compressed"
    << (e.has_transfer_cost ? "" : " (not measured: a profile before schema 4)");
  return s.str();
}

}  // namespace fb::sim
