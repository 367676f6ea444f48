#include "engine/client/random_ops.h"

namespace fb::ops {

Output RandomOp(const Scope& s, const std::string& op, IntInput shape, DataType dtype,
                int64_t seed, int64_t seed2) {
  return Op(s, op, {shape.ToOutput(s, false)}, {{"dtype", dtype}, {"seed", seed}, {"seed2", seed2}});
}

Output RandomUniform(const Scope& s, IntInput shape, DataType dtype,
                     int64_t seed, int64_t seed2) {
  return RandomOp(s, "RandomUniform", shape, dtype, seed, seed2);
}
Output RandomNormal(const Scope& s, IntInput shape, DataType dtype,
                    int64_t seed, int64_t seed2) {
  return RandomOp(s, "RandomStandardNormal", shape, dtype, seed, seed2);
}
Output TruncatedNormal(const Scope& s, IntInput shape, DataType dtype,
                       int64_t seed, int64_t seed2) {
  return RandomOp(s, "TruncatedNormal", shape, dtype, seed, seed2);
}

Output RandomShuffle(const Scope& s, Output value, int64_t seed, int64_t seed2) {
  return Op(s, "RandomShuffle", {value}, {{"seed", seed}, {"seed2", seed2}});
}

}  // namespace fb::ops
