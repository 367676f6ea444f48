#include "engine/client/state_ops.h"

namespace fb::ops {

Output Const(const Scope& s, const Tensor& value) {
  return Op(s, "Const", {}, {{"value", value}, {"dtype", value.dtype()}});
}
Output Placeholder(const Scope& s, DataType dtype, const TensorShape& shape) {
  return Op(s, "Placeholder", {}, {{"dtype", dtype}, {"shape", shape}});
}
Output Identity(const Scope& s, Output x) { return Op(s, "Identity", {x}); }
Node* NoOp(const Scope& s) { return AddOp(s, "NoOp", {}); }
Output Variable(const Scope& s, const TensorShape& shape, DataType dtype,
                const std::string& container, const std::string& shared_name) {
  return Op(s, "Variable", {},
            {{"shape", shape}, {"dtype", dtype}, {"container", container}, {"shared_name", shared_name}});
}
Output Assign(const Scope& s, Output ref, Output value) { return Op(s, "Assign", {ref, value}); }
Output AssignAdd(const Scope& s, Output ref, Output value) { return Op(s, "AssignAdd", {ref, value}); }
Output AssignSub(const Scope& s, Output ref, Output value) { return Op(s, "AssignSub", {ref, value}); }

}  // namespace fb::ops
