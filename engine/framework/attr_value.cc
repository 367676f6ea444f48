#include "engine/framework/attr_value.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/framework/echo_input.h"
#include "engine/framework/json_values.h"

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
  if (type() == AttrType::kTensor) return get<Tensor>().DebugString(4);
  json j = AttrValueToJson(*this);
  return EchoJson(j.begin().value());
}

json AttrValueToJson(const AttrValue& v) {
  switch (v.type()) {
    case AttrType::kInt: return {{"i", v.get<int64_t>()}};
    case AttrType::kFloat: return {{"f", FloatToJson(v.get<float>())}};
    case AttrType::kBool: return {{"b", v.get<bool>()}};
    case AttrType::kString: return {{"s", v.get<std::string>()}};
    case AttrType::kType: return {{"type", DataTypeString(v.get<DataType>())}};
    case AttrType::kShape:
      if (IsUnknownRank(v.get<TensorShape>())) return {{"shape", "unknown"}};
      return {{"shape", v.get<TensorShape>().dim_sizes()}};
    case AttrType::kTensor: return {{"tensor", TensorToJson(v.get<Tensor>())}};
    case AttrType::kListInt: return {{"list", {{"i", v.get<std::vector<int64_t>>()}}}};
    case AttrType::kListFloat: {
      json a = json::array();
      for (float f : v.get<std::vector<float>>()) a.push_back(FloatToJson(f));
      return {{"list", {{"f", a}}}};
    }
    case AttrType::kListString: return {{"list", {{"s", v.get<std::vector<std::string>>()}}}};
    case AttrType::kListType: {
      json a = json::array();
      for (DataType d : v.get<std::vector<DataType>>()) a.push_back(DataTypeString(d));
      return {{"list", {{"type", a}}}};
    }
    case AttrType::kListShape: {
      json a = json::array();
      for (const auto& s : v.get<std::vector<TensorShape>>()) {
        if (IsUnknownRank(s)) a.push_back("unknown");
        else a.push_back(s.dim_sizes());
      }
      return {{"list", {{"shape", a}}}};
    }
  }
  return {};
}

namespace {

StatusOr<AttrValue> ParseAs(const json& j, AttrType t) {
  auto bad = [&]() {
    return InvalidArgument("expected a value of type ", AttrTypeString(t), ", got ", EchoJson(j));
  };
  switch (t) {
    case AttrType::kInt: {
      auto i = Int64FromJson(j);
      if (!i.ok()) return i.status();
      return AttrValue(*i);
    }
    case AttrType::kFloat: {
      auto f = FloatFromJson(j, DataType::kFloat);
      if (!f.ok()) return f.status();
      return AttrValue(static_cast<float>(*f));
    }
    case AttrType::kBool:
      if (!j.is_boolean()) return bad();
      return AttrValue(j.get<bool>());
    case AttrType::kString:
      if (!j.is_string()) return bad();
      return AttrValue(j.get<std::string>());
    case AttrType::kType: {
      if (!j.is_string()) return bad();
      auto dt = DataTypeFromString(j.get<std::string>());
      if (!dt.ok()) return InvalidArgument("unknown dtype ", EchoJson(j));
      return AttrValue(*dt);
    }
    case AttrType::kShape: {
      if (j.is_string() && j.get<std::string>() == "unknown") return AttrValue(UnknownRankShape());
      if (!j.is_array()) return bad();
      ASSIGN_OR_RETURN(std::vector<int64_t> dims, ShapeFromJson(j, /*allow_unknown=*/true));
      return AttrValue(TensorShape(std::move(dims)));
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
    case AttrType::kListInt: {
      std::vector<int64_t> ints;
      for (const auto& e : j) {
        ASSIGN_OR_RETURN(int64_t i, Int64FromJson(e));
        ints.push_back(i);
      }
      return AttrValue(ints);
    }
    case AttrType::kListFloat: {
      std::vector<float> floats;
      for (const auto& e : j) {
        ASSIGN_OR_RETURN(double f, FloatFromJson(e, DataType::kFloat));
        floats.push_back(static_cast<float>(f));
      }
      return AttrValue(floats);
    }
    case AttrType::kListString:
      for (const auto& e : j) if (!e.is_string()) return bad();
      return AttrValue(j.get<std::vector<std::string>>());
    case AttrType::kListType: {
      std::vector<DataType> types;
      for (const auto& e : j) {
        if (!e.is_string()) return bad();
        auto dt = DataTypeFromString(e.get<std::string>());
        if (!dt.ok()) return InvalidArgument("unknown dtype ", EchoJson(e));
        types.push_back(*dt);
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
    return InvalidArgument("attr value ", EchoJson(j), " has no type tag");
  } catch (const json::exception& e) {
    return InvalidArgument("malformed attr value ", EchoJson(j), ": ", e.what());
  }
}

}  // namespace fb
