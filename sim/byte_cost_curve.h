#pragma once
// A cost that grows with a tensor's bytes, given by measured points and interpolated between them
// (issue 17): what a transfer between devices of one process, or a lossy 16-bit conversion of
// --compression (whitepaper 5.5), costs per tensor. Measured by sim/transfer_cost_probe.h at a
// few sizes (1 KiB to 4 MiB), where the cost is not linear: a tensor that fits a core's cache
// costs less per byte than one read from memory.
#include <utility>
#include <vector>

namespace fb::sim {

struct ByteCostCurve {
  // (bytes, cost) with bytes > 0 strictly increasing; the cost in the caller's unit (ns in a
  // profile, seconds in SimCosts).
  std::vector<std::pair<double, double>> points;

  bool empty() const { return points.empty(); }
  // The cost of a tensor of `bytes`: 0 without points; the first point's cost at or below its
  // bytes (the fixed cost of a small tensor); linear between two points; beyond the last, the
  // last segment's slope continued (the last cost when there is one point or that slope is
  // negative).
  double At(double bytes) const;
  // This curve with every cost multiplied by `factor` (a unit change).
  ByteCostCurve Scaled(double factor) const;
};

// `points` sorted by bytes with non-decreasing costs (a larger tensor does not cost less, so a
// decrease is noise): the least-squares non-decreasing fit (pool adjacent violators: a run of
// points that decreases gets its mean cost), after merging points of equal bytes (their mean),
// dropping bytes <= 0 and clamping negative costs at 0. Noise of either sign (a Run slowed by
// the machine's load, in the ring or in the local chain it is compared with) is averaged out
// rather than carried to every larger size.
ByteCostCurve MonotoneCurve(std::vector<std::pair<double, double>> points);

}  // namespace fb::sim
