#include "datasets/shuffle.h"

#include <numeric>
#include <utility>

namespace fb::datasets {

std::vector<int64_t> Permutation(int64_t n, uint64_t seed, uint64_t stream) {
  std::vector<int64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  SplitMix64 rng(seed, stream);
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(p[i], p[rng.Uniform(static_cast<uint64_t>(i) + 1)]);
  }
  return p;
}

}  // namespace fb::datasets
