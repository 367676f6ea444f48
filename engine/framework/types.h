#pragma once
// DataType: the element types a Tensor can hold, with their names (TensorFlow's spelling:
// "float", "double", "half", "bfloat16", "int32", ...) and sizes in bytes.
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "engine/framework/status.h"

namespace fb {

enum class DataType : int8_t {
  kInvalid = 0,
  kFloat,
  kDouble,
  kHalf,
  kBFloat16,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kBool,
  kComplex64,
  kString,
};

using half = Eigen::half;
using bfloat16 = Eigen::bfloat16;
using complex64 = std::complex<float>;

// Every valid DataType, in enum order.
const std::vector<DataType>& AllDataTypes();
// "float", "int32", ...; "invalid" for kInvalid.
const char* DataTypeString(DataType dt);
// Parses a TensorFlow dtype name; also accepts "float32" and "float64" and "float16".
// Returns InvalidArgument for unknown names.
StatusOr<DataType> DataTypeFromString(const std::string& name);
// Bytes per element; 0 for kString (strings are std::string objects) and kInvalid.
size_t DataTypeSize(DataType dt);
bool DataTypeIsFloating(DataType dt);  // float, double, half, bfloat16
bool DataTypeIsInteger(DataType dt);
// Shorthand "float, double" for error messages.
std::string DataTypeListString(const std::vector<DataType>& types);

// Maps a C++ type to its DataType: DataTypeToEnum<float>::value == DataType::kFloat.
template <typename T>
struct DataTypeToEnum;
#define FB_MATCH_TYPE_AND_ENUM(TYPE, ENUM)                 \
  template <>                                              \
  struct DataTypeToEnum<TYPE> {                            \
    static constexpr DataType value = DataType::ENUM;      \
  };
FB_MATCH_TYPE_AND_ENUM(float, kFloat)
FB_MATCH_TYPE_AND_ENUM(double, kDouble)
FB_MATCH_TYPE_AND_ENUM(half, kHalf)
FB_MATCH_TYPE_AND_ENUM(bfloat16, kBFloat16)
FB_MATCH_TYPE_AND_ENUM(int8_t, kInt8)
FB_MATCH_TYPE_AND_ENUM(int16_t, kInt16)
FB_MATCH_TYPE_AND_ENUM(int32_t, kInt32)
FB_MATCH_TYPE_AND_ENUM(int64_t, kInt64)
FB_MATCH_TYPE_AND_ENUM(uint8_t, kUInt8)
FB_MATCH_TYPE_AND_ENUM(uint16_t, kUInt16)
FB_MATCH_TYPE_AND_ENUM(uint32_t, kUInt32)
FB_MATCH_TYPE_AND_ENUM(uint64_t, kUInt64)
FB_MATCH_TYPE_AND_ENUM(bool, kBool)
FB_MATCH_TYPE_AND_ENUM(complex64, kComplex64)
FB_MATCH_TYPE_AND_ENUM(std::string, kString)
#undef FB_MATCH_TYPE_AND_ENUM

// Calls fn(T{}) with the C++ type of `dt` (all types), returning fn's result.
// Used by generic code (copy, fill, npy I/O); kernels use type-constrained registration instead.
#define FB_CASE_TYPE(ENUM, TYPE) \
  case DataType::ENUM:           \
    return fn(TYPE{});
template <typename Fn>
auto VisitDataType(DataType dt, Fn&& fn) {
  switch (dt) {
    FB_CASE_TYPE(kFloat, float)
    FB_CASE_TYPE(kDouble, double)
    FB_CASE_TYPE(kHalf, half)
    FB_CASE_TYPE(kBFloat16, bfloat16)
    FB_CASE_TYPE(kInt8, int8_t)
    FB_CASE_TYPE(kInt16, int16_t)
    FB_CASE_TYPE(kInt32, int32_t)
    FB_CASE_TYPE(kInt64, int64_t)
    FB_CASE_TYPE(kUInt8, uint8_t)
    FB_CASE_TYPE(kUInt16, uint16_t)
    FB_CASE_TYPE(kUInt32, uint32_t)
    FB_CASE_TYPE(kUInt64, uint64_t)
    FB_CASE_TYPE(kBool, bool)
    FB_CASE_TYPE(kComplex64, complex64)
    FB_CASE_TYPE(kString, std::string)
    default:
      break;
  }
  FB_CHECK(false) << "VisitDataType: invalid dtype";
  return fn(float{});
}
#undef FB_CASE_TYPE

}  // namespace fb
