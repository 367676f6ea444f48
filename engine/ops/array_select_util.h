#pragma once
// Shape rule of Select (engine/ops/array_select_ops.cc), shared by its shape function and its
// CPU kernel so that graph-time and run-time errors read the same.
#include "engine/framework/tensor_shape.h"

namespace fb {

// The output shape of Select(condition, t, e), TensorFlow 1's rule: t and e have the same shape
// (-1 dims unify with anything), and condition is a scalar, has that shape, or is a vector of
// its first dimension. InvalidArgument naming the shapes otherwise ("t and e must have the same
// shape, got [2] and [3]").
StatusOr<TensorShape> SelectShape(const TensorShape& condition, const TensorShape& t,
                                  const TensorShape& e);

}  // namespace fb
