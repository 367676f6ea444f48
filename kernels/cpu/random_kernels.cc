// CPU kernels of RandomUniform, RandomStandardNormal and TruncatedNormal (engine/ops/random_ops.cc)
// for half, bfloat16, float and double, after TensorFlow's random_op.cc: each Run reserves a fresh
// range of the node's Philox stream, and output group g is computed from counter base + g (or
// base + g * 256 for rejection sampling), so results do not depend on how the intra-op thread
// pool splits the work.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/guarded_philox_random.h"

namespace fb {

namespace {

using random::GuardedPhiloxRandom;
using random::PhiloxRandom;

// Fills data[0, size) from `dist`, in groups of Dist::kResultElementCount spread over `pool`.
template <typename Dist, typename T>
void FillPhiloxRandom(ThreadPool* pool, const PhiloxRandom& base, T* data, int64_t size,
                      const Dist& dist) {
  constexpr int kGroup = Dist::kResultElementCount;
  // Rejection sampling may use up to 256 values per output: reserve that much per group.
  constexpr uint64_t kSkipPerGroup = kGroup * 256 / PhiloxRandom::kResultElementCount;
  const int64_t groups = (size + kGroup - 1) / kGroup;
  pool->ParallelFor(groups, Dist::kVariableSamples ? 200 : 40, [&](int64_t begin, int64_t end) {
    PhiloxRandom gen = base;
    if (!Dist::kVariableSamples) gen.Skip(begin);
    for (int64_t g = begin; g < end; ++g) {
      std::array<T, kGroup> samples;
      if constexpr (Dist::kVariableSamples) {
        PhiloxRandom group_gen = base;
        group_gen.Skip(g * kSkipPerGroup);
        random::SingleSampleAdapter single(&group_gen);
        samples = dist(&single);
      } else {
        samples = dist(&gen);
      }
      const int64_t n = std::min<int64_t>(kGroup, size - g * kGroup);
      std::copy(samples.begin(), samples.begin() + n, data + g * kGroup);
    }
  });
}

template <typename Dist, typename T>
class PhiloxRandomOp : public OpKernel {
 public:
  explicit PhiloxRandomOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    generator_.Init(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                InvalidArgument("shape must be a 1-D tensor, got shape ",
                                shape_t.shape().DebugString()));
    std::vector<int64_t> dims = IntTensorValues(shape_t);
    OP_REQUIRES_OK(ctx, ValidateShape(dims, "shape " + IntListString(dims)));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t n = out->NumElements();
    // TensorFlow reserves 256 steps per output element, whatever the distribution.
    PhiloxRandom base = generator_.ReserveSamples128(static_cast<uint64_t>(n) * 256);
    FillPhiloxRandom(ctx->intra_op_pool(), base, out->data<T>(), n, Dist());
  }

 private:
  GuardedPhiloxRandom generator_;
};

#define FB_REGISTER_RANDOM(T)                                                                \
  REGISTER_KERNEL(KernelDefBuilder("RandomUniform").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
                  PhiloxRandomOp<random::UniformDistribution<T>, T>);                        \
  REGISTER_KERNEL(                                                                           \
      KernelDefBuilder("RandomStandardNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
      PhiloxRandomOp<random::NormalDistribution<T>, T>);                                     \
  REGISTER_KERNEL(                                                                           \
      KernelDefBuilder("TruncatedNormal").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),     \
      PhiloxRandomOp<random::TruncatedNormalDistribution<T>, T>);
FB_REGISTER_RANDOM(half)
FB_REGISTER_RANDOM(bfloat16)
FB_REGISTER_RANDOM(float)
FB_REGISTER_RANDOM(double)
#undef FB_REGISTER_RANDOM

}  // namespace

}  // namespace fb
