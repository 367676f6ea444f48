#pragma once
// Client wrappers for the engine's basic ops: constants, placeholders, identity, variables.
#include "engine/client/scope.h"

namespace fb::ops {

Output Const(const Scope& s, const Tensor& value);
template <typename T>
Output Const(const Scope& s, T value) { return Const(s, Tensor::Scalar<T>(value)); }
template <typename T>
Output Const(const Scope& s, const std::vector<T>& values, const TensorShape& shape) {
  return Const(s, Tensor::FromVector<T>(values, shape));
}
// `shape` may hold -1 dimensions; UnknownRankShape() accepts any shape.
Output Placeholder(const Scope& s, DataType dtype, const TensorShape& shape = UnknownRankShape());
Output Identity(const Scope& s, Output x);
Node* NoOp(const Scope& s);
Output Variable(const Scope& s, const TensorShape& shape, DataType dtype,
                const std::string& container = "", const std::string& shared_name = "");
Output Assign(const Scope& s, Output ref, Output value);
Output AssignAdd(const Scope& s, Output ref, Output value);
Output AssignSub(const Scope& s, Output ref, Output value);

}  // namespace fb::ops
