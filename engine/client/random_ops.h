#pragma once
// Client wrappers for the random ops (engine/ops/random_ops.cc): values of `dtype` (half,
// bfloat16, float, double) and shape `shape`, from the Philox 4x32-10 stream keyed by
// (seed, seed2). With either seed non-zero a fresh Session reproduces the same sequence; each
// Run of the node draws new values.
//
//   auto w = ops::TruncatedNormal(root, {784, 100}, DataType::kFloat, /*seed=*/1);
#include <cstdint>
#include <string>
#include <vector>

#include "engine/client/array_ops.h"

namespace fb::ops {

// Uniform in [0, 1).
Output RandomUniform(const Scope& s, IntInput shape,
                     DataType dtype = DataType::kFloat, int64_t seed = 0, int64_t seed2 = 0);
// Standard normal (TensorFlow's RandomStandardNormal).
Output RandomNormal(const Scope& s, IntInput shape,
                    DataType dtype = DataType::kFloat, int64_t seed = 0, int64_t seed2 = 0);
// Standard normal redrawn until |x| < 2.
Output TruncatedNormal(const Scope& s, IntInput shape,
                       DataType dtype = DataType::kFloat, int64_t seed = 0, int64_t seed2 = 0);
// value with its first dimension randomly permuted (any dtype), reproducible with a seed.
Output RandomShuffle(const Scope& s, Output value, int64_t seed = 0, int64_t seed2 = 0);
// Any of the three ops by name ("RandomUniform", "RandomStandardNormal", "TruncatedNormal").
Output RandomOp(const Scope& s, const std::string& op, IntInput shape, DataType dtype,
                int64_t seed = 0, int64_t seed2 = 0);

}  // namespace fb::ops
