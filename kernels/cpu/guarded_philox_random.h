#pragma once
// The per-node Philox stream of the random kernels (TensorFlow's GuardedPhiloxRandom): keyed by
// the node's (seed, seed2) attrs, or by random seeds when both are 0; successive Runs reserve
// disjoint ranges of it, so a seeded node draws a reproducible sequence of values across Runs.
// Thread-safe. Used by kernels/cpu/random_kernels.cc and kernels/cpu/random_shuffle_kernels.cc.
#include <mutex>
#include <random>

#include "kernels/cpu/philox_random.h"

namespace fb::random {

class GuardedPhiloxRandom {
 public:
  void Init(int64_t seed, int64_t seed2) {
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      auto draw64 = [&rd] { return (static_cast<uint64_t>(rd()) << 32) | rd(); };
      generator_ = PhiloxRandom(draw64(), draw64());
    } else {
      generator_ = PhiloxRandom(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
    }
  }
  // A generator at the start of a range of `samples` 128-bit steps that no other call gets.
  PhiloxRandom ReserveSamples128(uint64_t samples) {
    std::lock_guard<std::mutex> l(mu_);
    PhiloxRandom local = generator_;
    generator_.Skip(samples);
    return local;
  }

 private:
  std::mutex mu_;
  PhiloxRandom generator_;
};

}  // namespace fb::random
