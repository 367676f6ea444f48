#pragma once
// OpDef: what an operation is (whitepaper section 2, "Operations and Kernels"): typed inputs and
// outputs, attributes with defaults and allowed values, statefulness, a shape function, and docs.
// Registered once per op with REGISTER_OP, the way TensorFlow's op.h does:
//
//   REGISTER_OP("MatMul")
//       .Input("a: T").Input("b: T").Output("product: T")
//       .Attr("transpose_a: bool = false").Attr("T: {float, double}")
//       .SetShapeFn(shape_fns::MatMul).Doc("...");
//
// Arg specs: "name: T" (type from attr T), "name: float" (fixed), "name: N * T" (N tensors of
// type T), "name: T" with "T: list(type)" (one tensor per listed type, mixed dtypes, as in
// TensorFlow's Save), "name: Ref(T)" (a mutable reference to a Variable's tensor).
// Attr specs: "name: type", "name: type = default", "T: {float, double}" (a type restricted to a
// set), "N: int >= 1". Types: int float bool string type shape tensor list(int) list(float)
// list(string) list(type) list(shape).
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/framework/attr_value.h"

namespace fb {

class InferenceContext;
using ShapeFn = std::function<Status(InferenceContext*)>;

struct ArgDef {
  std::string name;
  DataType type = DataType::kInvalid;  // fixed type, or
  std::string type_attr;               // the attr holding the type
  std::string number_attr;             // for "N * T": the attr holding the count
  bool is_ref = false;
};

struct AttrDef {
  std::string name;
  AttrType type = AttrType::kInt;
  std::optional<AttrValue> default_value;
  std::vector<DataType> allowed_types;  // empty: any
  std::optional<int64_t> minimum;
};

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  bool is_stateful = false;  // never CSE'd or constant-folded; Variables, random ops, queues
  ShapeFn shape_fn;          // may be empty: outputs get unknown shapes
  std::string doc;
  const AttrDef* FindAttr(const std::string& name) const;
};

// Collects an OpDef from specs; Finalize() parses them and reports malformed specs.
class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);
  OpDefBuilder& Input(std::string spec);
  OpDefBuilder& Output(std::string spec);
  OpDefBuilder& Attr(std::string spec);
  OpDefBuilder& SetIsStateful();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& Doc(std::string doc);
  StatusOr<OpDef> Finalize() const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::vector<std::string> inputs_, outputs_, attrs_;
  bool stateful_ = false;
  ShapeFn shape_fn_;
  std::string doc_;
};

// Process-wide op registry. Thread-safe. Registration of a malformed or duplicate op aborts at
// startup (a programming error in a registration file, never user input).
class OpRegistry {
 public:
  static OpRegistry* Global();
  void Register(const OpDefBuilder& builder);
  // NotFound("unknown op 'Foo'") when absent.
  StatusOr<const OpDef*> LookUp(const std::string& op) const;
  std::vector<const OpDef*> ListOps() const;  // sorted by name

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
};

namespace register_op {
struct Registrar {
  Registrar(const OpDefBuilder& b) { OpRegistry::Global()->Register(b); }  // NOLINT
};
}  // namespace register_op

#define REGISTER_OP(name) \
  static ::fb::register_op::Registrar FB_CONCAT(fb_op_registrar_, __COUNTER__) = \
      ::fb::OpDefBuilder(name)

// Fills defaults for missing attrs and checks that every attr the op declares is present, has
// the declared type and an allowed value, and that no undeclared attr is set (names starting with
// '_' are allowed: internal annotations). Errors name the node.
Status AddDefaultsAndValidateAttrs(const OpDef& op, const std::string& node_name, AttrMap* attrs);

// Expands the input and output arg lists of `op` into per-tensor dtypes using `attrs`
// (N * T args become N entries). `input_is_ref` marks Ref inputs.
Status InOutTypesForNode(const OpDef& op, const std::string& node_name, const AttrMap& attrs,
                         std::vector<DataType>* inputs, std::vector<DataType>* outputs,
                         std::vector<bool>* input_is_ref = nullptr,
                         std::vector<bool>* output_is_ref = nullptr);

}  // namespace fb
