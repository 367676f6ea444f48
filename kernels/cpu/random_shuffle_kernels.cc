// CPU kernel of RandomShuffle (engine/ops/random_shuffle_ops.cc) for every dtype, after
// TensorFlow's random_shuffle_op.cc: a Fisher-Yates shuffle of the row indices drawing 32-bit
// words (64-bit for more than 2^32 rows) from a range of the node's Philox stream reserved per
// Run, then the rows copied in that order.
#include <algorithm>
#include <numeric>

#include "engine/framework/op_kernel.h"
#include "kernels/cpu/guarded_philox_random.h"

namespace fb {
namespace {

using random::GuardedPhiloxRandom;
using random::PhiloxRandom;
using random::SingleSampleAdapter;

class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    generator_.Init(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    if (value.dims() == 0 || value.dim_size(0) <= 1) {
      ctx->forward_input(0, 0);
      return;
    }
    const int64_t n = value.dim_size(0);
    std::vector<int64_t> perm = Permutation(n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    const int64_t row = value.NumElements() / n;
    VisitDataType(value.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* in = value.data<T>();
      T* o = out->data<T>();
      for (int64_t i = 0; i < n; ++i)
        std::copy(in + perm[i] * row, in + (perm[i] + 1) * row, o + i * row);
    });
  }

 private:
  // A uniformly random permutation of [0, n), from a fresh range of the stream.
  std::vector<int64_t> Permutation(int64_t n) {
    // Up to two 32-bit words per swap, four words per 128-bit step.
    PhiloxRandom gen = generator_.ReserveSamples128(static_cast<uint64_t>(n) / 2 + 1);
    SingleSampleAdapter single(&gen);
    auto uniform = [&single](uint64_t bound) -> uint64_t {
      if (bound <= 0xffffffffULL) return single() % bound;
      const uint64_t hi = single();
      return ((hi << 32) | single()) % bound;
    };
    std::vector<int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), int64_t{0});
    for (int64_t i = n - 1; i > 0; --i)
      std::swap(perm[i], perm[uniform(static_cast<uint64_t>(i) + 1)]);
    return perm;
  }

  GuardedPhiloxRandom generator_;
};

REGISTER_KERNEL(KernelDefBuilder("RandomShuffle").Device(DEVICE_CPU), RandomShuffleOp);

}  // namespace
}  // namespace fb
