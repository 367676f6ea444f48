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
  ByteCostCurve c;
  for (size_t i = 0; i < points.size();) {
    size_t j = i;
    double sum = 0;
    for (; j < points.size() && points[j].first == points[i].first; ++j) sum += points[j].second;
    if (points[i].first > 0) {
      double cost = std::max(0.0, sum / static_cast<double>(j - i));
      if (!c.points.empty()) cost = std::max(cost, c.points.back().second);
      c.points.emplace_back(points[i].first, cost);
    }
    i = j;
  }
  return c;
}

}  // namespace fb::sim
