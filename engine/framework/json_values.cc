#include "engine/framework/json_values.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "engine/framework/echo_input.h"

namespace fb {

using json = nlohmann::json;

StatusOr<std::vector<int64_t>> ShapeFromJson(const json& j, bool allow_unknown) {
  if (!j.is_array())
    return InvalidArgument("shape must be a list of dimensions, got ", EchoJson(j));
  if (j.size() > static_cast<size_t>(kMaxJsonRank))
    return InvalidArgument("shape has ", j.size(), " dimensions, at most ", kMaxJsonRank,
                           " are supported");
  std::vector<int64_t> dims;
  int64_t elements = 1;
  for (size_t i = 0; i < j.size(); ++i) {
    const json& d = j[i];
    auto dim = Int64FromJson(d);
    if (!dim.ok() || *dim < (allow_unknown ? -1 : 0))
      return InvalidArgument("shape dimension ", i, " must be an integer >= ",
                             allow_unknown ? "-1 (-1: unknown)" : "0", ", got ", EchoJson(d));
    if (*dim > 0 && elements > kMaxShapeElements / *dim)
      return InvalidArgument("shape ", EchoJson(j), " has more than ", kMaxShapeElements,
                             " elements (its byte size could overflow 64 bits)");
    if (*dim >= 0) elements *= *dim;
    dims.push_back(*dim);
  }
  return dims;
}

StatusOr<int64_t> Int64FromJson(const json& v) {
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return InvalidArgument("integer ", EchoJson(v), " is out of range for int64");
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::trunc(d))
      return InvalidArgument("expected an integer, got ", EchoJson(v));
    // [-2^63, 2^63): both bounds are exact doubles.
    if (d < -std::ldexp(1.0, 63) || d >= std::ldexp(1.0, 63))
      return InvalidArgument("integer ", EchoJson(v), " is out of range for int64");
    return static_cast<int64_t>(d);
  }
  return InvalidArgument("expected an integer, got ", EchoJson(v));
}

namespace {
// The smallest magnitude that rounds to infinity in dt (round to nearest even): halfway between
// the largest finite value and the next power of two.
double OverflowThreshold(DataType dt) {
  switch (dt) {
    case DataType::kHalf: return std::ldexp(2.0 - std::ldexp(1.0, -11), 15);      // 65520
    case DataType::kBFloat16: return std::ldexp(2.0 - std::ldexp(1.0, -8), 127);
    case DataType::kFloat: return std::ldexp(2.0 - std::ldexp(1.0, -24), 127);
    default: return std::numeric_limits<double>::infinity();
  }
}
}  // namespace

StatusOr<double> FloatFromJson(const json& v, DataType dt) {
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s == "nan" || s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf" || s == "+inf" || s == "Infinity")
      return std::numeric_limits<double>::infinity();
    if (s == "-inf" || s == "-Infinity") return -std::numeric_limits<double>::infinity();
    return InvalidArgument("expected a number (or \"nan\", \"inf\", \"-inf\"), got ", EchoJson(v));
  }
  if (!v.is_number()) return InvalidArgument("expected a number, got ", EchoJson(v));
  double d = v.get<double>();
  // The JSON parser turns literals beyond double's range (1e400) into infinity.
  if (!std::isfinite(d) || std::fabs(d) >= OverflowThreshold(dt))
    return InvalidArgument("value ", EchoJson(v), " is out of range for ", DataTypeString(dt));
  return d;
}

json FloatToJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

}  // namespace fb
