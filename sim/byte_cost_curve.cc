#include "sim/byte_cost_curve.h"

#include <algorithm>

namespace fb::sim {

double ByteCostCurve::At(double bytes) const {
  if (points.empty()) return 0;
  if (bytes <= points.front().first) return points.front().second;
  for (size_t i = 1; i < points.size(); ++i) {
    const auto& [x1, y1] = points[i];
    if (bytes > x1) continue;
    const auto& [x0, y0] = points[i - 1];
    return y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
  }
  const auto& [xn, yn] = points.back();
  if (points.size() == 1) return yn;
  const auto& [xp, yp] = points[points.size() - 2];
  const double slope = std::max(0.0, (yn - yp) / (xn - xp));
  return yn + slope * (bytes - xn);
}

ByteCostCurve ByteCostCurve::Scaled(double factor) const {
  ByteCostCurve c = *this;
  for (auto& p : c.points) p.second *= factor;
  return c;
}

ByteCostCurve MonotoneCurve(std::vector<std::pair<double, double>> points) {
  std::sort(points.begin(), points.end());
  // Merge equal sizes (their mean), drop sizes <= 0 and clamp costs at 0.
  std::vector<std::pair<double, double>> merged;
  for (size_t i = 0; i < points.size();) {
    size_t j = i;
    double sum = 0;
    for (; j < points.size() && points[j].first == points[i].first; ++j) sum += points[j].second;
    if (points[i].first > 0)
      merged.emplace_back(points[i].first, std::max(0.0, sum / static_cast<double>(j - i)));
    i = j;
  }
  // Pool adjacent violators: blocks of (mean cost, points) merged while a block costs less than
  // the one before.
  std::vector<std::pair<double, int>> blocks;
  for (const auto& p : merged) {
    blocks.emplace_back(p.second, 1);
    while (blocks.size() > 1 && blocks.back().first < blocks[blocks.size() - 2].first) {
      const auto [mean, n] = blocks.back();
      blocks.pop_back();
      auto& prev = blocks.back();
      prev.first = (prev.first * prev.second + mean * n) / (prev.second + n);
      prev.second += n;
    }
  }
  ByteCostCurve c;
  size_t k = 0;
  for (const auto& [mean, n] : blocks)
    for (int i = 0; i < n; ++i) c.points.emplace_back(merged[k++].first, mean);
  return c;
}

}  // namespace fb::sim
