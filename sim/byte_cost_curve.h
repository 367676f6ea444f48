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

// `points` sorted by bytes, with the costs made non-decreasing (each at least the one before:
// a larger tensor does not cost less, so a lower measurement is noise) and negative costs 0;
// points of equal bytes are merged (their mean) and points with bytes <= 0 dropped.
ByteCostCurve MonotoneCurve(std::vector<std::pair<double, double>> points);

}  // namespace fb::sim
