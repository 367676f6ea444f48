#include "engine/client/math_ops.h"

#include "engine/client/state_ops.h"

namespace fb::ops {
namespace {
// A scope for a helper node (an axes Const) named `name`, leaving the op name the caller gave
// `s` to the op itself.
Scope Helper(const Scope& s, const char* name) { return s.NewSubScope("").WithOpName(name); }
}  // namespace

#define FB_BINARY_WRAPPER(NAME) \
  Output NAME(const Scope& s, Output x, Output y) { return Op(s, #NAME, {x, y}); }
#define FB_UNARY_WRAPPER(NAME) \
  Output NAME(const Scope& s, Output x) { return Op(s, #NAME, {x}); }

FB_BINARY_WRAPPER(Add)
FB_BINARY_WRAPPER(Sub)
FB_BINARY_WRAPPER(Mul)
FB_BINARY_WRAPPER(Div)
FB_BINARY_WRAPPER(Pow)
FB_BINARY_WRAPPER(Maximum)
FB_BINARY_WRAPPER(Minimum)
FB_BINARY_WRAPPER(Greater)
FB_BINARY_WRAPPER(Less)
FB_BINARY_WRAPPER(Equal)
FB_BINARY_WRAPPER(GreaterEqual)
FB_BINARY_WRAPPER(LessEqual)
FB_BINARY_WRAPPER(NotEqual)
FB_BINARY_WRAPPER(LogicalAnd)
FB_BINARY_WRAPPER(LogicalOr)
FB_UNARY_WRAPPER(LogicalNot)
FB_UNARY_WRAPPER(Neg)
FB_UNARY_WRAPPER(Square)
FB_UNARY_WRAPPER(Exp)
FB_UNARY_WRAPPER(Log)
FB_UNARY_WRAPPER(Sqrt)
FB_UNARY_WRAPPER(Rsqrt)
FB_UNARY_WRAPPER(Reciprocal)
FB_UNARY_WRAPPER(MatrixDeterminant)
FB_UNARY_WRAPPER(ZerosLike)
FB_UNARY_WRAPPER(OnesLike)
#undef FB_UNARY_WRAPPER

// Reductions: one overload with a tensor of axes, one building an int32 Const of them.
#define FB_REDUCTION_WRAPPER(NAME)                                                        \
  Output NAME(const Scope& s, Output x, Output axes, bool keep_dims) {                    \
    return Op(s, #NAME, {x, axes}, {{"keep_dims", keep_dims}});                           \
  }                                                                                       \
  Output NAME(const Scope& s, Output x, const std::vector<int>& axes, bool keep_dims) {   \
    std::vector<int32_t> values(axes.begin(), axes.end());                               \
    Output axes_const = Const(Helper(s, #NAME "/reduction_indices"),                      \
                              Tensor::FromVector<int32_t>(values));                      \
    return NAME(s, x, axes_const, keep_dims);                                             \
  }

FB_REDUCTION_WRAPPER(Sum)
FB_REDUCTION_WRAPPER(Mean)
FB_REDUCTION_WRAPPER(Max)
FB_REDUCTION_WRAPPER(Min)
FB_REDUCTION_WRAPPER(Prod)
#undef FB_REDUCTION_WRAPPER
#undef FB_BINARY_WRAPPER

Output Cast(const Scope& s, Output x, DataType dtype) { return Op(s, "Cast", {x}, {{"DstT", dtype}}); }

Output AddN(const Scope& s, const std::vector<Output>& inputs) {
  Node* n = AddOpWithList(s, "AddN", {inputs});
  return n ? Output(n, 0) : Output();
}

Output ArgMax(const Scope& s, Output x, int axis, DataType output_type) {
  Output dim = Const(Helper(s, "ArgMax/dimension"), Tensor::Scalar<int32_t>(axis));
  return Op(s, "ArgMax", {x, dim}, {{"output_type", output_type}});
}

Output ArgMin(const Scope& s, Output x, int axis, DataType output_type) {
  Output dim = Const(Helper(s, "ArgMin/dimension"), Tensor::Scalar<int32_t>(axis));
  return Op(s, "ArgMin", {x, dim}, {{"output_type", output_type}});
}

Output MatMul(const Scope& s, Output a, Output b, bool transpose_a, bool transpose_b) {
  return Op(s, "MatMul", {a, b}, {{"transpose_a", transpose_a}, {"transpose_b", transpose_b}});
}

Output BatchMatMul(const Scope& s, Output x, Output y, bool adj_x, bool adj_y) {
  return Op(s, "BatchMatMul", {x, y}, {{"adj_x", adj_x}, {"adj_y", adj_y}});
}

Output MatrixInverse(const Scope& s, Output x, bool adjoint) {
  return Op(s, "MatrixInverse", {x}, {{"adjoint", adjoint}});
}

Output Fill(const Scope& s, Output dims, Output value) { return Op(s, "Fill", {dims, value}); }

Output Range(const Scope& s, Output start, Output limit, Output delta) {
  return Op(s, "Range", {start, limit, delta});
}

}  // namespace fb::ops
