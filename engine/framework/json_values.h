#pragma once
// Checked conversion of JSON numbers and shapes from graph files (docs/graph-format.md) into
// the engine's types. Nothing wraps, truncates or overflows silently: a value that does not fit
// its dtype, a dimension that is not an integer, or a shape whose byte size overflows is an
// InvalidArgument that quotes the value (bounded by EchoJson). Used by AttrValueFromJson and
// TensorFromJson.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/framework/types.h"

namespace fb {

// Most dimensions a shape read from JSON may have (a tensor's, or a shape attr's).
inline constexpr int kMaxJsonRank = 64;
// Most elements a shape read from JSON may describe: 2^58 - 1, so that the byte size for any
// element type (at most 32 bytes, a std::string) fits in int64.
inline constexpr int64_t kMaxShapeElements = std::numeric_limits<int64_t>::max() / 32;

// Parses a JSON array of dimensions. Each must be an integer >= 0, or -1 (unknown) when
// `allow_unknown` is set; at most kMaxJsonRank of them, and the product of the known ones at
// most kMaxShapeElements. InvalidArgument otherwise, quoting the offending dimension.
StatusOr<std::vector<int64_t>> ShapeFromJson(const nlohmann::json& j, bool allow_unknown);

// A JSON integer (or an integral JSON float such as 3.0) as int64. InvalidArgument for other
// JSON types, non-integral values (3.5) and values outside int64.
StatusOr<int64_t> Int64FromJson(const nlohmann::json& v);

// A JSON number as a floating value of dtype `dt` (float, double, half or bfloat16): finite
// numbers that would round to infinity in dt (float32: |v| >= 2^128 - 2^103, so 1e39) are
// InvalidArgument. Non-finite values are written as the JSON strings "nan", "inf", "-inf"
// ("NaN", "Infinity", "-Infinity" and "+inf" are accepted too).
StatusOr<double> FloatFromJson(const nlohmann::json& v, DataType dt);

// A floating value as JSON: a number when finite, else the string "nan", "inf" or "-inf".
nlohmann::json FloatToJson(double v);

}  // namespace fb
