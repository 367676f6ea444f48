#pragma once
// Deterministic shuffling for the input pipeline: a SplitMix64 stream (Steele, Lea and Flood,
// OOPSLA'14) keyed by (seed, stream) drives a Fisher-Yates shuffle, so a permutation depends only
// on its key, never on the standard library or the thread count.
#include <cstdint>
#include <vector>

namespace fb::datasets {

class SplitMix64 {
 public:
  SplitMix64(uint64_t seed, uint64_t stream) : state_(seed * 0x9E3779B97F4A7C15ull ^ (stream + 1) * 0xD1B54A32D192ED03ull) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (n > 0), by rejection so that it is unbiased.
  uint64_t Uniform(uint64_t n) {
    const uint64_t limit = ~uint64_t{0} - (~uint64_t{0} % n);
    uint64_t x;
    do x = Next(); while (x >= limit);
    return x % n;
  }
  // Uniform float in [0, 1).
  float UniformFloat() { return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f); }

 private:
  uint64_t state_;
};

// A permutation of [0, n) determined by (seed, stream).
std::vector<int64_t> Permutation(int64_t n, uint64_t seed, uint64_t stream);

}  // namespace fb::datasets
