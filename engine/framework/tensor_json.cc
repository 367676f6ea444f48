// TensorToJson / TensorFromJson (declared in attr_value.h): the JSON form of a tensor in graph
// files, {"dtype": "int32", "shape": [2], "values": [1, 2]} (docs/graph-format.md). Reading
// checks everything before it allocates: the shape (integers >= 0, at most kMaxJsonRank, byte
// size within 64 bits), the number of values against the shape, and each value against its
// dtype's range (no silent wrapping: int32 4000000000 and float32 1e39 are errors).
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "engine/framework/attr_value.h"
#include "engine/framework/echo_input.h"
#include "engine/framework/json_values.h"

namespace fb {

using json = nlohmann::json;

namespace {

// A single value broadcast to every element may describe at most this many bytes: the file
// holds one value, so a larger tensor is almost surely a typo, and allocating it could take the
// machine's memory. Explicit values are bounded by the file's own size.
constexpr int64_t kMaxBroadcastBytes = int64_t{1} << 30;

template <typename T>
Status IntegerFromJson(const json& v, DataType dt, T* out) {
  using Limits = std::numeric_limits<T>;
  auto out_of_range = [&]() {
    return InvalidArgument("value ", EchoJson(v), " is out of range for ", DataTypeString(dt),
                           " [", +Limits::min(), ", ", +Limits::max(), "]");
  };
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(Limits::max())) return out_of_range();
    *out = static_cast<T>(u);
    return Status::OK();
  }
  if (v.is_number_integer()) {
    auto i = v.get<int64_t>();
    if (i < 0 ? (!Limits::is_signed || i < static_cast<int64_t>(Limits::min()))
              : static_cast<uint64_t>(i) > static_cast<uint64_t>(Limits::max()))
      return out_of_range();
    *out = static_cast<T>(i);
    return Status::OK();
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (!std::isfinite(d) || d != std::trunc(d))
      return InvalidArgument("value ", EchoJson(v), " is not an integer, as ", DataTypeString(dt),
                             " needs");
    // [min, 2^digits): exact doubles for every integer type.
    if (d < static_cast<double>(Limits::min()) || d >= std::ldexp(1.0, Limits::digits))
      return out_of_range();
    *out = static_cast<T>(d);
    return Status::OK();
  }
  return InvalidArgument("expected an integer for ", DataTypeString(dt), ", got ", EchoJson(v));
}

Status BoolFromJson(const json& v, bool* out) {
  if (v.is_boolean()) {
    *out = v.get<bool>();
    return Status::OK();
  }
  if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1)) {
    *out = v.get<int64_t>() == 1;
    return Status::OK();
  }
  return InvalidArgument("value ", EchoJson(v), " is not a bool (true, false, 0 or 1)");
}

// Converts one JSON value into element type T of dtype dt.
template <typename T>
Status ElementFromJson(const json& v, DataType dt, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    return BoolFromJson(v, out);
  } else if constexpr (std::is_integral_v<T>) {
    return IntegerFromJson(v, dt, out);
  } else if constexpr (std::is_same_v<T, complex64>) {
    if (!v.is_array() || v.size() != 2)
      return InvalidArgument("a complex64 value must be [real, imag], got ", EchoJson(v));
    ASSIGN_OR_RETURN(double re, FloatFromJson(v[0], DataType::kFloat));
    ASSIGN_OR_RETURN(double im, FloatFromJson(v[1], DataType::kFloat));
    *out = complex64(static_cast<float>(re), static_cast<float>(im));
    return Status::OK();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) return InvalidArgument("expected a string, got ", EchoJson(v));
    *out = v.get<std::string>();
    return Status::OK();
  } else {  // float, double, half, bfloat16
    ASSIGN_OR_RETURN(double d, FloatFromJson(v, dt));
    *out = T(static_cast<float>(d));
    if constexpr (std::is_same_v<T, double>) *out = d;
    return Status::OK();
  }
}

// Element count of `dims` and whether `num_values` values can fill it, before any allocation.
StatusOr<int64_t> CheckTensorSize(DataType dt, const std::vector<int64_t>& dims,
                                  size_t num_values) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;  // ShapeFromJson bounded the product by kMaxShapeElements
  int64_t elem = dt == DataType::kString ? sizeof(std::string) : DataTypeSize(dt);
  static_assert(sizeof(std::string) <= 32, "kMaxShapeElements assumes elements of <= 32 bytes");
  int64_t bytes = n * elem;  // n <= kMaxShapeElements = INT64_MAX / 32: no overflow
  std::string shape = TensorShape(dims).DebugString();
  if (num_values == 1 && n > 1 && bytes > kMaxBroadcastBytes)
    return InvalidArgument("tensor of dtype ", DataTypeString(dt), " and shape ", EchoInput(shape),
                           " (", bytes, " bytes) from one broadcast value is larger than the ",
                           kMaxBroadcastBytes, "-byte limit for broadcast constants");
  if (static_cast<int64_t>(num_values) != n && num_values != 1)
    return InvalidArgument("tensor of dtype ", DataTypeString(dt), " and shape ", EchoInput(shape),
                           " needs ", n, " values (", bytes, " bytes), got ", num_values);
  return n;
}

}  // namespace

json TensorToJson(const Tensor& t) {
  json values = json::array();
  VisitDataType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* d = t.data<T>();
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if constexpr (std::is_same_v<T, complex64>) {
        values.push_back({FloatToJson(d[i].real()), FloatToJson(d[i].imag())});
      } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16> ||
                           std::is_floating_point_v<T>) {
        values.push_back(FloatToJson(static_cast<double>(static_cast<float>(d[i]))));
        if constexpr (std::is_same_v<T, double>) values.back() = FloatToJson(d[i]);
      } else {
        values.push_back(d[i]);
      }
    }
    return 0;
  });
  return json{{"dtype", DataTypeString(t.dtype())}, {"shape", t.shape().dim_sizes()},
              {"values", values}};
}

StatusOr<Tensor> TensorFromJson(const json& j) {
  if (!j.is_object() || !j.contains("dtype") || !j.contains("shape"))
    return InvalidArgument("tensor must be an object with 'dtype', 'shape' and 'values', got ",
                           EchoJson(j));
  const json& jdtype = j["dtype"];
  if (!jdtype.is_string())
    return InvalidArgument("tensor 'dtype' must be a string, got ", EchoJson(jdtype));
  auto dt = DataTypeFromString(jdtype.get<std::string>());
  if (!dt.ok()) return InvalidArgument("tensor has unknown dtype ", EchoJson(jdtype));
  auto dims = ShapeFromJson(j["shape"], /*allow_unknown=*/false);
  if (!dims.ok()) return dims.status().WithPrefix("tensor ");
  static const json kNoValues = json::array();
  const json& values = j.contains("values") ? j["values"] : kNoValues;
  if (!values.is_array())
    return InvalidArgument("tensor 'values' must be a list, got ", EchoJson(values));
  ASSIGN_OR_RETURN(int64_t n, CheckTensorSize(*dt, *dims, values.size()));
  Tensor t(*dt, TensorShape(*dims));
  Status status;
  VisitDataType(*dt, [&](auto zero) {
    using T = decltype(zero);
    T* d = t.data<T>();
    bool broadcast = values.size() == 1;
    // One value broadcasts to every element (TensorFlow's Const with a single value).
    for (int64_t i = 0; i < (broadcast ? std::min<int64_t>(n, 1) : n); ++i) {
      status = ElementFromJson(values[i], *dt, &d[i]);
      if (!status.ok()) {
        status = status.WithPrefix("tensor element " + std::to_string(i) + ": ");
        return 0;
      }
    }
    if (broadcast) std::fill(d, d + n, n > 0 ? d[0] : T());
    return 0;
  });
  RETURN_IF_ERROR(status);
  return t;
}

}  // namespace fb
