#pragma once
// Shape rule of Tile (engine/ops/array_tile_ops.cc), shared by its shape function and its CPU
// kernel so that graph-time and run-time errors read the same.
#include <cstdint>
#include <vector>

#include "engine/framework/tensor_shape.h"

namespace fb {

// output[i] = input[i] * multiples[i] (TensorFlow's Tile). `input` may hold -1 (unknown) dims,
// which stay -1. InvalidArgument when multiples has not one entry per dimension ("multiples
// [2] has 1 entries for input of shape [2,3]"), an entry is negative, or the product overflows.
StatusOr<TensorShape> TileShape(const TensorShape& input, const std::vector<int64_t>& multiples);

}  // namespace fb
