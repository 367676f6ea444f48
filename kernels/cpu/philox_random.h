#pragma once
// Philox 4x32-10, the counter-based random number generator of Salmon, Moraes, Dror and Shaw,
// "Parallel random numbers: as easy as 1, 2, 3" (SC'11), and the distributions TensorFlow builds
// on it (tensorflow/core/lib/random/philox_random.h, random_distributions.h), reproduced so that
// the same (seed, seed2) gives the same numbers as TensorFlow's CPU kernels.
//
// The generator maps a 128-bit counter and a 64-bit key to 128 random bits; Skip(n) jumps ahead
// by n counter steps in O(1), so any element of a stream can be computed independently of the
// others. That makes parallel generation deterministic: output group g always uses counter
// base + g (or base + 256 * groups for rejection-sampled distributions), whichever thread runs it.
// Header-only; a PhiloxRandom is a value type (not thread-safe, copy it per thread).
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "engine/framework/types.h"

namespace fb::random {

class PhiloxRandom {
 public:
  using ResultType = std::array<uint32_t, 4>;
  using Key = std::array<uint32_t, 2>;
  static constexpr int kResultElementCount = 4;

  PhiloxRandom() = default;
  // TensorFlow's seeding: the key is seed_lo, the upper half of the counter is seed_hi.
  PhiloxRandom(uint64_t seed_lo, uint64_t seed_hi) {
    key_[0] = static_cast<uint32_t>(seed_lo);
    key_[1] = static_cast<uint32_t>(seed_lo >> 32);
    counter_[2] = static_cast<uint32_t>(seed_hi);
    counter_[3] = static_cast<uint32_t>(seed_hi >> 32);
  }
  PhiloxRandom(ResultType counter, Key key) : counter_(counter), key_(key) {}

  // Advances the 128-bit counter by `count`.
  void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }

  // 128 random bits from the current counter; then advances the counter by one.
  ResultType operator()() {
    ResultType counter = counter_;
    Key key = key_;
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key[0] += kW32A;
        key[1] += kW32B;
      }
      counter = SingleRound(counter, key);
    }
    Skip(1);
    return counter;
  }

 private:
  static constexpr uint32_t kW32A = 0x9E3779B9, kW32B = 0xBB67AE85;
  static constexpr uint32_t kM4x32A = 0xD2511F53, kM4x32B = 0xCD9E8D57;

  static ResultType SingleRound(const ResultType& c, const Key& key) {
    const uint64_t p0 = static_cast<uint64_t>(kM4x32A) * c[0];
    const uint64_t p1 = static_cast<uint64_t>(kM4x32B) * c[2];
    return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ key[0], static_cast<uint32_t>(p1),
            static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ key[1], static_cast<uint32_t>(p0)};
  }

  ResultType counter_{};
  Key key_{};
};

// Hands out a generator's 32-bit words one at a time (for rejection sampling).
class SingleSampleAdapter {
 public:
  explicit SingleSampleAdapter(PhiloxRandom* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == PhiloxRandom::kResultElementCount) {
      buffer_ = (*gen_)();
      used_ = 0;
    }
    return buffer_[used_++];
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::ResultType buffer_{};
  int used_ = PhiloxRandom::kResultElementCount;
};

// Uniform in [0, 1) from the low mantissa bits: 23 for float, 52 for double (two words).
inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}
inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}
inline half Uint16ToHalf(uint32_t x) {
  const uint16_t bits = static_cast<uint16_t>((15u << 10) | (x & 0x3ffu));
  return Eigen::numext::bit_cast<half>(bits) - half(1.0f);
}
inline bfloat16 Uint16ToBfloat16(uint32_t x) {
  const uint16_t bits = static_cast<uint16_t>((127u << 7) | (x & 0x7fu));
  return Eigen::numext::bit_cast<bfloat16>(bits) - bfloat16(1.0f);
}

// Box-Muller: two independent standard normals from two uniforms (u1 clamped away from 0).
inline void BoxMullerFloat(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = Uint32ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = 2.0f * static_cast<float>(M_PI) * Uint32ToFloat(x1);
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  *f0 = std::sin(v1) * u2;
  *f1 = std::cos(v1) * u2;
}
inline void BoxMullerDouble(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                            double* d1) {
  double u1 = Uint64ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2.0 * M_PI * Uint64ToDouble(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  *d0 = std::sin(v1) * u2;
  *d1 = std::cos(v1) * u2;
}

// Distributions: each call turns 128 bits (one generator step) into kResultElementCount values;
// 32-bit types give 4 per step, double gives 2. kVariableSamples marks rejection sampling, which
// draws from a SingleSampleAdapter instead.
template <typename T>
struct UniformDistribution {
  static constexpr int kResultElementCount = std::is_same_v<T, double> ? 2 : 4;
  static constexpr bool kVariableSamples = false;
  std::array<T, kResultElementCount> operator()(PhiloxRandom* gen) const {
    const auto s = (*gen)();
    std::array<T, kResultElementCount> r;
    for (int i = 0; i < kResultElementCount; ++i) {
      if constexpr (std::is_same_v<T, double>) r[i] = Uint64ToDouble(s[2 * i], s[2 * i + 1]);
      else if constexpr (std::is_same_v<T, float>) r[i] = Uint32ToFloat(s[i]);
      else if constexpr (std::is_same_v<T, half>) r[i] = Uint16ToHalf(s[i]);
      else r[i] = Uint16ToBfloat16(s[i]);
    }
    return r;
  }
};

template <typename T>
struct NormalDistribution {
  static constexpr int kResultElementCount = std::is_same_v<T, double> ? 2 : 4;
  static constexpr bool kVariableSamples = false;
  std::array<T, kResultElementCount> operator()(PhiloxRandom* gen) const {
    const auto s = (*gen)();
    std::array<T, kResultElementCount> r;
    if constexpr (std::is_same_v<T, double>) {
      BoxMullerDouble(s[0], s[1], s[2], s[3], &r[0], &r[1]);
    } else {
      for (int i = 0; i < 4; i += 2) {
        float f0, f1;
        BoxMullerFloat(s[i], s[i + 1], &f0, &f1);
        r[i] = T(f0);
        r[i + 1] = T(f1);
      }
    }
    return r;
  }
};

// Standard normals with |x| < 2, by rejection (TensorFlow's TruncatedNormalDistribution).
template <typename T>
struct TruncatedNormalDistribution {
  static constexpr int kResultElementCount = std::is_same_v<T, double> ? 2 : 4;
  static constexpr bool kVariableSamples = true;
  std::array<T, kResultElementCount> operator()(SingleSampleAdapter* gen) const {
    std::array<T, kResultElementCount> r;
    int index = 0;
    while (index < kResultElementCount) {
      double v[2];
      if constexpr (std::is_same_v<T, double>) {
        const uint32_t x0 = (*gen)(), x1 = (*gen)(), x2 = (*gen)(), x3 = (*gen)();
        BoxMullerDouble(x0, x1, x2, x3, &v[0], &v[1]);
      } else {
        const uint32_t x0 = (*gen)(), x1 = (*gen)();
        float f0, f1;
        BoxMullerFloat(x0, x1, &f0, &f1);
        v[0] = f0, v[1] = f1;
      }
      for (int k = 0; k < 2 && index < kResultElementCount; ++k)
        if (std::abs(v[k]) < kTruncateValue) r[index++] = T(v[k]);
    }
    return r;
  }
  static constexpr double kTruncateValue = 2.0;
};

}  // namespace fb::random
