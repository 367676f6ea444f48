#include "sim/op_rate_curves.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace fb::sim {

double OpRateCurve::RateAt(double work) const {
  if (knots.empty()) return 0;
  if (knots.size() == 1 || work <= knots.front().first) return knots.front().second;
  if (work >= knots.back().first) return knots.back().second;
  auto hi = std::lower_bound(knots.begin(), knots.end(), std::make_pair(work, -HUGE_VAL));
  auto lo = hi - 1;
  const double f = std::log(work / lo->first) / std::log(hi->first / lo->first);
  return std::exp(std::log(lo->second) + f * std::log(hi->second / lo->second));
}

namespace {

bool ParsePositive(const std::string& s, double* v) {
  char* end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return !s.empty() && *end == '\0' && std::isfinite(*v) && *v > 0;
}

}  // namespace

StatusOr<OpRateCurve> ParseOpRateCurve(const std::string& value, const std::string& host,
                                       const std::string& property) {
  OpRateCurve c;
  std::istringstream in(value);
  std::string knot;
  while (in >> knot) {
    const size_t colon = knot.find(':');
    double w = 0, r = 0;
    if (colon == std::string::npos || !ParsePositive(knot.substr(0, colon), &w) ||
        !ParsePositive(knot.substr(colon + 1), &r))
      return InvalidArgument("host '", host, "': property '", property, "': knot '", knot,
                             "' must be WORK:RATE, two finite numbers > 0");
    if (!c.knots.empty() && !(w > c.knots.back().first))
      return InvalidArgument("host '", host, "': property '", property, "': the work of knot '",
                             knot, "' must be larger than the previous knot's (",
                             c.knots.back().first, ")");
    c.knots.emplace_back(w, r);
  }
  if (c.knots.empty())
    return InvalidArgument("host '", host, "': property '", property,
                           "' must hold knots WORK:RATE separated by spaces, got '", value, "'");
  return c;
}

std::string FormatOpRateCurve(const OpRateCurve& c) {
  std::ostringstream s;
  s.precision(4);
  for (const auto& [w, r] : c.knots) s << (s.tellp() > 0 ? " " : "") << w << ":" << r;
  return s.str();
}

}  // namespace fb::sim
