#include "sim/platform_units.h"

#include <cmath>
#include <cstdlib>
#include <map>

namespace fb::sim {
namespace {

using UnitTable = std::map<std::string, double, std::less<>>;

// `unit` with SimGrid's prefixes: base 10 (k M G ...: x1000 each) or base 2 (Ki Mi Gi ...:
// x1024 each), abbreviated or spelled out (kilo mega ...).
void AddPrefixed(UnitTable* t, const std::string& unit, double value, int base, bool abbrev) {
  static const char* kDecimal[] = {"k", "M", "G", "T", "P", "E", "Z", "Y"};
  static const char* kDecimalLong[] = {"kilo", "mega", "giga", "tera",
                                       "peta", "exa",  "zeta", "yotta"};
  static const char* kBinary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"};
  static const char* kBinaryLong[] = {"kibi", "mebi", "gibi", "tebi",
                                      "pebi", "exbi", "zebi", "yobi"};
  const char** prefixes =
      base == 2 ? (abbrev ? kBinary : kBinaryLong) : (abbrev ? kDecimal : kDecimalLong);
  const double mult = base == 2 ? 1024.0 : 1000.0;
  t->emplace(unit, value);
  for (int i = 0; i < 8; ++i) {
    value *= mult;
    t->emplace(prefixes[i] + unit, value);
  }
}

const UnitTable& Units(Quantity kind) {
  static const UnitTable speed = [] {
    UnitTable t;
    AddPrefixed(&t, "f", 1.0, 10, true);
    AddPrefixed(&t, "flops", 1.0, 10, false);
    return t;
  }();
  static const UnitTable bandwidth = [] {
    UnitTable t;
    for (int base : {2, 10}) {
      AddPrefixed(&t, "bps", 0.125, base, true);
      AddPrefixed(&t, "Bps", 1.0, base, true);
    }
    return t;
  }();
  static const UnitTable size = [] {
    UnitTable t;
    for (int base : {2, 10}) {
      AddPrefixed(&t, "b", 0.125, base, true);
      AddPrefixed(&t, "B", 1.0, base, true);
    }
    return t;
  }();
  static const UnitTable time{
      {"w", 7 * 24 * 3600.0}, {"d", 24 * 3600.0}, {"h", 3600.0}, {"m", 60.0},  {"s", 1.0},
      {"ms", 1e-3},           {"us", 1e-6},       {"ns", 1e-9},  {"ps", 1e-12}};
  switch (kind) {
    case Quantity::kSpeed:
      return speed;
    case Quantity::kBandwidth:
      return bandwidth;
    case Quantity::kSize:
      return size;
    case Quantity::kTime:
      break;
  }
  return time;
}

const char* BaseUnit(Quantity kind) {
  switch (kind) {
    case Quantity::kSpeed:
      return "f";
    case Quantity::kBandwidth:
      return "Bps";
    case Quantity::kSize:
      return "B";
    case Quantity::kTime:
      break;
  }
  return "s";
}

}  // namespace

const char* QuantityName(Quantity kind) {
  switch (kind) {
    case Quantity::kSpeed:
      return "speed";
    case Quantity::kBandwidth:
      return "bandwidth";
    case Quantity::kSize:
      return "size";
    case Quantity::kTime:
      break;
  }
  return "time";
}

StatusOr<double> ParseQuantity(std::string_view text, Quantity kind) {
  const std::string s(text);
  const char* begin = s.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (s.empty() || end == begin || std::isspace(static_cast<unsigned char>(s[0])))
    return InvalidArgument("expected a ", QuantityName(kind), " like '10", BaseUnit(kind),
                           "', got '", s, "'");
  const std::string unit = *end == '\0' ? BaseUnit(kind) : std::string(end);
  const UnitTable& units = Units(kind);
  auto it = units.find(unit);
  if (it == units.end())
    return InvalidArgument("unknown ", QuantityName(kind), " unit '", unit, "' in '", s,
                           "' (expected e.g. '10", BaseUnit(kind), "')");
  const double value = number * it->second;
  if (!std::isfinite(value))
    return InvalidArgument(QuantityName(kind), " '", s, "' is not a finite number");
  return value;
}

}  // namespace fb::sim
