#pragma once
// AttrValue: the value of a node attribute (whitepaper section 2: "attributes ... provided or
// inferred at graph-construction time"). JSON form (GraphDef files, see docs/graph-format.md):
//   {"i": 3} {"f": 0.5} {"b": true} {"s": "SAME"} {"type": "float"} {"shape": [2, -1]}
//   {"tensor": {"dtype": "float", "shape": [2], "values": [1, 2]}}
//   {"list": {"i": [1, 2]}}  {"list": {"f": [...]}} {"list": {"s": [...]}} {"list": {"type": [...]}}
//   {"list": {"shape": [[2], [3]]}}
// Untagged JSON values are accepted when reading if the OpDef says what type the attr has.
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "engine/framework/tensor.h"

namespace fb {

enum class AttrType {
  kInt, kFloat, kBool, kString, kType, kShape, kTensor,
  kListInt, kListFloat, kListString, kListType, kListShape,
};
const char* AttrTypeString(AttrType t);  // "int", "float", ..., "list(int)"
StatusOr<AttrType> AttrTypeFromString(const std::string& s);

class AttrValue {
 public:
  using Storage = std::variant<int64_t, float, bool, std::string, DataType, TensorShape, Tensor,
                               std::vector<int64_t>, std::vector<float>, std::vector<std::string>,
                               std::vector<DataType>, std::vector<TensorShape>>;
  AttrValue() : v_(int64_t{0}) {}
  AttrValue(int64_t v) : v_(v) {}                        // NOLINT
  AttrValue(int v) : v_(int64_t{v}) {}                   // NOLINT
  AttrValue(float v) : v_(v) {}                          // NOLINT
  AttrValue(double v) : v_(static_cast<float>(v)) {}     // NOLINT
  AttrValue(bool v) : v_(v) {}                           // NOLINT
  AttrValue(std::string v) : v_(std::move(v)) {}         // NOLINT
  AttrValue(const char* v) : v_(std::string(v)) {}       // NOLINT
  AttrValue(DataType v) : v_(v) {}                       // NOLINT
  AttrValue(TensorShape v) : v_(std::move(v)) {}         // NOLINT
  AttrValue(Tensor v) : v_(std::move(v)) {}              // NOLINT
  AttrValue(std::vector<int64_t> v) : v_(std::move(v)) {}  // NOLINT
  AttrValue(std::vector<int> v);                           // NOLINT
  AttrValue(std::vector<float> v) : v_(std::move(v)) {}  // NOLINT
  AttrValue(std::vector<std::string> v) : v_(std::move(v)) {}  // NOLINT
  AttrValue(std::vector<DataType> v) : v_(std::move(v)) {}     // NOLINT
  AttrValue(std::vector<TensorShape> v) : v_(std::move(v)) {}  // NOLINT

  AttrType type() const { return static_cast<AttrType>(v_.index()); }
  template <typename T>
  bool holds() const { return std::holds_alternative<T>(v_); }
  template <typename T>
  const T& get() const { return std::get<T>(v_); }
  const Storage& storage() const { return v_; }
  bool operator==(const AttrValue& o) const;
  // Short human-readable form for messages and `flowbench ops`.
  std::string DebugString() const;

 private:
  Storage v_;
};

using AttrMap = std::map<std::string, AttrValue>;

// JSON conversion in the tagged form above.
nlohmann::json AttrValueToJson(const AttrValue& v);
// Parses tagged JSON, or untagged JSON as `expected` when expected is non-null.
// InvalidArgument on a value that does not match.
StatusOr<AttrValue> AttrValueFromJson(const nlohmann::json& j, const AttrType* expected);
nlohmann::json TensorToJson(const Tensor& t);
StatusOr<Tensor> TensorFromJson(const nlohmann::json& j);

}  // namespace fb

namespace fb {
// Reads attr `name` of type T from `attrs`. T: int64_t, int (narrowed), float, bool, std::string,
// DataType, TensorShape, Tensor, std::vector<int64_t>, std::vector<int>, std::vector<float>,
// std::vector<std::string>, std::vector<DataType>, std::vector<TensorShape>.
// NotFound if missing, InvalidArgument if of another type.
template <typename T>
Status GetNodeAttr(const AttrMap& attrs, const std::string& name, T* out) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return NotFound("attr '", name, "' not found");
  const AttrValue& v = it->second;
  if constexpr (std::is_same_v<T, int>) {
    if (!v.holds<int64_t>()) return InvalidArgument("attr '", name, "' is not an int");
    *out = static_cast<int>(v.get<int64_t>());
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    if (!v.holds<std::vector<int64_t>>())
      return InvalidArgument("attr '", name, "' is not a list(int)");
    out->assign(v.get<std::vector<int64_t>>().begin(), v.get<std::vector<int64_t>>().end());
  } else {
    if (!v.holds<T>()) return InvalidArgument("attr '", name, "' has type ", AttrTypeString(v.type()));
    *out = v.get<T>();
  }
  return Status::OK();
}
}  // namespace fb
