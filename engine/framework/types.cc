#include "engine/framework/types.h"

#include <sstream>

namespace fb {

namespace {
struct TypeInfo {
  DataType dt;
  const char* name;
  size_t size;
};
const TypeInfo kTypes[] = {
    {DataType::kFloat, "float", 4},       {DataType::kDouble, "double", 8},
    {DataType::kHalf, "half", 2},         {DataType::kBFloat16, "bfloat16", 2},
    {DataType::kInt8, "int8", 1},         {DataType::kInt16, "int16", 2},
    {DataType::kInt32, "int32", 4},       {DataType::kInt64, "int64", 8},
    {DataType::kUInt8, "uint8", 1},       {DataType::kUInt16, "uint16", 2},
    {DataType::kUInt32, "uint32", 4},     {DataType::kUInt64, "uint64", 8},
    {DataType::kBool, "bool", 1},         {DataType::kComplex64, "complex64", 8},
    {DataType::kString, "string", 0},
};
}  // namespace

const std::vector<DataType>& AllDataTypes() {
  static const std::vector<DataType> all = [] {
    std::vector<DataType> v;
    for (const auto& t : kTypes) v.push_back(t.dt);
    return v;
  }();
  return all;
}

const char* DataTypeString(DataType dt) {
  for (const auto& t : kTypes)
    if (t.dt == dt) return t.name;
  return "invalid";
}

StatusOr<DataType> DataTypeFromString(const std::string& name) {
  for (const auto& t : kTypes)
    if (name == t.name) return t.dt;
  if (name == "float32") return DataType::kFloat;
  if (name == "float64") return DataType::kDouble;
  if (name == "float16") return DataType::kHalf;
  return InvalidArgument("unknown dtype '", name, "'");
}

size_t DataTypeSize(DataType dt) {
  for (const auto& t : kTypes)
    if (t.dt == dt) return t.size;
  return 0;
}

bool DataTypeIsFloating(DataType dt) {
  return dt == DataType::kFloat || dt == DataType::kDouble || dt == DataType::kHalf ||
         dt == DataType::kBFloat16;
}

bool DataTypeIsInteger(DataType dt) {
  switch (dt) {
    case DataType::kInt8: case DataType::kInt16: case DataType::kInt32: case DataType::kInt64:
    case DataType::kUInt8: case DataType::kUInt16: case DataType::kUInt32: case DataType::kUInt64:
      return true;
    default:
      return false;
  }
}

std::string DataTypeListString(const std::vector<DataType>& types) {
  std::ostringstream os;
  for (size_t i = 0; i < types.size(); ++i) os << (i ? ", " : "") << DataTypeString(types[i]);
  return os.str();
}

}  // namespace fb
