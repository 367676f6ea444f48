#pragma once
// Axis handling shared by the reduction ops (Sum, Mean, Max, Min, ArgMax, ReducedShape): their
// shape functions and their CPU kernels read axes the same way, so errors read the same at graph
// time and at run time. Axes follow TensorFlow: an int32 or int64 scalar or vector, each in
// [-rank, rank) (negative counts from the end), duplicates allowed.
#include <vector>

#include "engine/framework/tensor.h"

namespace fb {

class InferenceContext;

// A mask over the `rank` dimensions, true where `axes` reduces. InvalidArgument if `axes` is not
// an int32/int64 scalar or vector ("reduction_indices must be a scalar or vector, got [2,2]") or
// an axis is out of range ("reduction index 3 is out of range for input of rank 2").
StatusOr<std::vector<bool>> ReductionMask(const Tensor& axes, int rank);

// The values of an int32 or int64 tensor as int64 (shapes and axes given as tensors).
// InvalidArgument for other dtypes, naming `what`.
StatusOr<std::vector<int64_t>> IndexValues(const Tensor& t, const char* what);

// `shape` with the masked dimensions removed, or set to 1 when `keep_dims`.
// Dimensions of -1 (unknown) pass through unchanged.
TensorShape ReducedShape(const TensorShape& shape, const std::vector<bool>& mask, bool keep_dims);

// Shape functions of the reductions. ReductionShape: inputs (input, reduction_indices) and attr
// keep_dims (Sum, Mean, Max, Min, Prod). ArgMaxShape: inputs (input, dimension), the scalar axis
// removed (ArgMax, ArgMin). Exact when the axes are a graph constant, else as much as is known.
Status ReductionShape(InferenceContext* c);
Status ArgMaxShape(InferenceContext* c);

}  // namespace fb
