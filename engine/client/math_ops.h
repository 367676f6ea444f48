#pragma once
// Client wrappers for the math ops (engine/ops/math_*.cc; whitepaper Table 1): element-wise math
// with NumPy broadcasting, reductions, matrix ops, and the constant-like ops autodiff uses.
// Each builds one node in `s` and returns its output; a build error (unknown dtype, bad attr)
// is recorded in the Scope and an invalid Output is returned. Shapes are checked when the
// kernels run: errors name the node, e.g. "Add 'add' on /job:...: incompatible shapes [2,3] and
// [4]".
#include <vector>

#include "engine/client/scope.h"

namespace fb::ops {

// Element-wise binary ops, broadcasting (float, double, int32, int64; Pow: float, double).
Output Add(const Scope& s, Output x, Output y);
Output Sub(const Scope& s, Output x, Output y);
Output Mul(const Scope& s, Output x, Output y);
Output Div(const Scope& s, Output x, Output y);  // integers truncate; a zero divisor fails
Output Pow(const Scope& s, Output x, Output y);
Output Maximum(const Scope& s, Output x, Output y);
Output Minimum(const Scope& s, Output x, Output y);
// Comparisons, broadcasting; bool outputs.
Output Greater(const Scope& s, Output x, Output y);
Output Less(const Scope& s, Output x, Output y);
Output Equal(const Scope& s, Output x, Output y);
Output GreaterEqual(const Scope& s, Output x, Output y);
Output LessEqual(const Scope& s, Output x, Output y);
Output NotEqual(const Scope& s, Output x, Output y);  // also bool; true where either is NaN
// Logical ops on bool tensors (And, Or broadcasting).
Output LogicalAnd(const Scope& s, Output x, Output y);
Output LogicalOr(const Scope& s, Output x, Output y);
Output LogicalNot(const Scope& s, Output x);

// Element-wise unary ops (Neg, Square: also int32, int64).
Output Neg(const Scope& s, Output x);
Output Square(const Scope& s, Output x);
Output Exp(const Scope& s, Output x);
Output Log(const Scope& s, Output x);
Output Sqrt(const Scope& s, Output x);
Output Rsqrt(const Scope& s, Output x);
Output Reciprocal(const Scope& s, Output x);

// x converted to `dtype` (any of the 13 numeric types, bool, half, bfloat16 included).
Output Cast(const Scope& s, Output x, DataType dtype);
// Sum of equal-shaped tensors.
Output AddN(const Scope& s, const std::vector<Output>& inputs);

// Reductions over `axes` (negative axes count from the end; empty: reduce nothing). The first
// form builds an int32 Const for the axes; the second takes any int32/int64 tensor.
Output Sum(const Scope& s, Output x, const std::vector<int>& axes, bool keep_dims = false);
Output Sum(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Mean(const Scope& s, Output x, const std::vector<int>& axes, bool keep_dims = false);
Output Mean(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Max(const Scope& s, Output x, const std::vector<int>& axes, bool keep_dims = false);
Output Max(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Min(const Scope& s, Output x, const std::vector<int>& axes, bool keep_dims = false);
Output Min(const Scope& s, Output x, Output axes, bool keep_dims = false);
Output Prod(const Scope& s, Output x, const std::vector<int>& axes, bool keep_dims = false);
Output Prod(const Scope& s, Output x, Output axes, bool keep_dims = false);
// Index of the largest value along `axis`; output_type int64 (default) or int32.
Output ArgMax(const Scope& s, Output x, int axis, DataType output_type = DataType::kInt64);
// Index of the smallest value along `axis` (the first NaN, if any, as NumPy's argmin).
Output ArgMin(const Scope& s, Output x, int axis, DataType output_type = DataType::kInt64);

// Matrix product of [M,K] x [K,N] (each transposed first when asked).
Output MatMul(const Scope& s, Output a, Output b, bool transpose_a = false,
              bool transpose_b = false);
// Batched matrix product of [..., M, K] x [..., K, N] with equal batch dimensions.
Output BatchMatMul(const Scope& s, Output x, Output y, bool adj_x = false, bool adj_y = false);
// Inverse (of the transpose when adjoint) of each matrix of [..., M, M]; singular fails.
Output MatrixInverse(const Scope& s, Output x, bool adjoint = false);
// Determinant of each matrix of [..., M, M]: shape [...].
Output MatrixDeterminant(const Scope& s, Output x);

// start, start + delta, ... excluding limit: scalars of one dtype (int32, int64, float, double).
// Fails when the Session runs it if delta is 0 or points away from limit.
Output Range(const Scope& s, Output start, Output limit, Output delta);

Output ZerosLike(const Scope& s, Output x);
Output OnesLike(const Scope& s, Output x);
// A tensor of shape `dims` (int32/int64 vector) filled with the scalar `value`.
Output Fill(const Scope& s, Output dims, Output value);

}  // namespace fb::ops
