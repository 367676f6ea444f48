#include "engine/framework/attr_value.h"

#include <sstream>

#include <nlohmann/json.hpp>

namespace fb {

using json = nlohmann::json;

namespace {
const char* kAttrTypeNames[] = {"int",       "float",       "bool",        "string",
                                "type",      "shape",       "tensor",      "list(int)",
                                "list(float)", "list(string)", "list(type)", "list(shape)"};
}  // namespace

const char* AttrTypeString(AttrType t) { return kAttrTypeNames[static_cast<int>(t)]; }

StatusOr<AttrType> AttrTypeFromString(const std::string& s) {
  for (int i = 0; i < 12; ++i)
    if (s == kAttrTypeNames[i]) return static_cast<AttrType>(i);
  return InvalidArgument("unknown attr type '", s, "'");
}

AttrValue::AttrValue(std::vector<int> v) : v_(std::vector<int64_t>(v.begin(), v.end())) {}

bool AttrValue::operator==(const AttrValue& o) const {
  if (type() != o.type()) return false;
  if (type() == AttrType::kTensor) return TensorsEqual(get<Tensor>(), o.get<Tensor>());
  return std::visit(
      [&](const auto& a) {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, Tensor>) return false;
        else return a == std::get<T>(o.v_);
      },
      v_);
}

std::string AttrValue::DebugString() const {
  json j = AttrValueToJson(*this);
  if (type() == AttrType::kTensor) return get<Tensor>().DebugString(4);
  return j.begin().value().dump();
}

json TensorToJson(const Tensor& t) {
  json values = json::array();
  VisitDataType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* d = t.data<T>();
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        values.push_back(static_cast<float>(d[i]));
      } else if constexpr (std::is_same_v<T, complex64>) {
        values.push_back({d[i].real(), d[i].imag()});
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
    return InvalidArgument("tensor must be an object with 'dtype', 'shape' and 'values'");
  ASSIGN_OR_RETURN(DataType dt, DataTypeFromString(j["dtype"].get<std::string>()));
  std::vector<int64_t> dims = j["shape"].get<std::vector<int64_t>>();
  RETURN_IF_ERROR(ValidateShape(dims, "tensor"));
  Tensor t(dt, TensorShape(dims));
  const json& values = j.contains("values") ? j["values"] : json::array();
  int64_t n = t.NumElements();
  // One value broadcasts to every element (TensorFlow's Const with a single value).
  if (!values.is_array() || (static_cast<int64_t>(values.size()) != n && values.size() != 1))
    return InvalidArgument("tensor of shape ", t.shape().DebugString(), " needs ", n,
                           " values, got ", values.is_array() ? values.size() : 0);
  VisitDataType(dt, [&](auto zero) {
    using T = decltype(zero);
    T* d = t.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      const json& v = values.size() == 1 ? values[0] : values[i];
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
        d[i] = T(v.get<float>());
      } else if constexpr (std::is_same_v<T, complex64>) {
        d[i] = complex64(v[0].get<float>(), v[1].get<float>());
      } else {
        d[i] = v.get<T>();
      }
    }
    return 0;
  });
  return t;
}

json AttrValueToJson(const AttrValue& v) {
  switch (v.type()) {
    case AttrType::kInt: return {{"i", v.get<int64_t>()}};
    case AttrType::kFloat: return {{"f", v.get<float>()}};
    case AttrType::kBool: return {{"b", v.get<bool>()}};
    case AttrType::kString: return {{"s", v.get<std::string>()}};
    case AttrType::kType: return {{"type", DataTypeString(v.get<DataType>())}};
    case AttrType::kShape:
      if (IsUnknownRank(v.get<TensorShape>())) return {{"shape", "unknown"}};
      return {{"shape", v.get<TensorShape>().dim_sizes()}};
    case AttrType::kTensor: return {{"tensor", TensorToJson(v.get<Tensor>())}};
    case AttrType::kListInt: return {{"list", {{"i", v.get<std::vector<int64_t>>()}}}};
    case AttrType::kListFloat: return {{"list", {{"f", v.get<std::vector<float>>()}}}};
    case AttrType::kListString: return {{"list", {{"s", v.get<std::vector<std::string>>()}}}};
    case AttrType::kListType: {
      json a = json::array();
      for (DataType d : v.get<std::vector<DataType>>()) a.push_back(DataTypeString(d));
      return {{"list", {{"type", a}}}};
    }
    case AttrType::kListShape: {
      json a = json::array();
      for (const auto& s : v.get<std::vector<TensorShape>>()) a.push_back(s.dim_sizes());
      return {{"list", {{"shape", a}}}};
    }
  }
  return {};
}

namespace {

StatusOr<AttrValue> ParseAs(const json& j, AttrType t) {
  auto bad = [&]() {
    return InvalidArgument("expected a value of type ", AttrTypeString(t), ", got ", j.dump());
  };
  switch (t) {
    case AttrType::kInt:
      if (!j.is_number_integer()) return bad();
      return AttrValue(j.get<int64_t>());
    case AttrType::kFloat:
      if (!j.is_number()) return bad();
      return AttrValue(j.get<float>());
    case AttrType::kBool:
      if (!j.is_boolean()) return bad();
      return AttrValue(j.get<bool>());
    case AttrType::kString:
      if (!j.is_string()) return bad();
      return AttrValue(j.get<std::string>());
    case AttrType::kType: {
      if (!j.is_string()) return bad();
      ASSIGN_OR_RETURN(DataType dt, DataTypeFromString(j.get<std::string>()));
      return AttrValue(dt);
    }
    case AttrType::kShape: {
      if (j.is_string() && j.get<std::string>() == "unknown") return AttrValue(UnknownRankShape());
      if (!j.is_array()) return bad();
      for (const auto& d : j)
        if (!d.is_number_integer() || d.get<int64_t>() < -1) return bad();
      return AttrValue(TensorShape(j.get<std::vector<int64_t>>()));
    }
    case AttrType::kTensor: {
      ASSIGN_OR_RETURN(Tensor tensor, TensorFromJson(j));
      return AttrValue(tensor);
    }
    default:
      break;
  }
  if (!j.is_array()) return bad();
  switch (t) {
    case AttrType::kListInt:
      for (const auto& e : j) if (!e.is_number_integer()) return bad();
      return AttrValue(j.get<std::vector<int64_t>>());
    case AttrType::kListFloat:
      for (const auto& e : j) if (!e.is_number()) return bad();
      return AttrValue(j.get<std::vector<float>>());
    case AttrType::kListString:
      for (const auto& e : j) if (!e.is_string()) return bad();
      return AttrValue(j.get<std::vector<std::string>>());
    case AttrType::kListType: {
      std::vector<DataType> types;
      for (const auto& e : j) {
        if (!e.is_string()) return bad();
        ASSIGN_OR_RETURN(DataType dt, DataTypeFromString(e.get<std::string>()));
        types.push_back(dt);
      }
      return AttrValue(types);
    }
    case AttrType::kListShape: {
      std::vector<TensorShape> shapes;
      for (const auto& e : j) {
        ASSIGN_OR_RETURN(AttrValue s, ParseAs(e, AttrType::kShape));
        shapes.push_back(s.get<TensorShape>());
      }
      return AttrValue(shapes);
    }
    default:
      return bad();
  }
}

}  // namespace

StatusOr<AttrValue> AttrValueFromJson(const json& j, const AttrType* expected) {
  try {
    if (j.is_object() && j.size() == 1) {
      const std::string& tag = j.begin().key();
      const json& v = j.begin().value();
      static const std::map<std::string, AttrType> kTags = {
          {"i", AttrType::kInt},       {"f", AttrType::kFloat},   {"b", AttrType::kBool},
          {"s", AttrType::kString},    {"type", AttrType::kType}, {"shape", AttrType::kShape},
          {"tensor", AttrType::kTensor}};
      static const std::map<std::string, AttrType> kListTags = {
          {"i", AttrType::kListInt},   {"f", AttrType::kListFloat}, {"s", AttrType::kListString},
          {"type", AttrType::kListType}, {"shape", AttrType::kListShape}};
      if (auto it = kTags.find(tag); it != kTags.end()) return ParseAs(v, it->second);
      if (tag == "list" && v.is_object() && v.size() == 1) {
        if (auto it = kListTags.find(v.begin().key()); it != kListTags.end())
          return ParseAs(v.begin().value(), it->second);
      }
    }
    if (expected) return ParseAs(j, *expected);
    return InvalidArgument("attr value ", j.dump(), " has no type tag");
  } catch (const json::exception& e) {
    return InvalidArgument("malformed attr value ", j.dump(), ": ", e.what());
  }
}

}  // namespace fb
