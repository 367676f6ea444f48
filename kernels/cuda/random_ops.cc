// GPU kernels of RandomUniform, RandomStandardNormal and TruncatedNormal (float, double). Each
// node owns a Philox stream seeded like the CPU kernel's (key = seed, counter high half = seed2;
// both 0: a random seed) and each Run reserves 256 steps per output element, as
// kernels/cpu/random_kernels.cc does, so a GPU node and a CPU node with the same seeds produce
// the same sequence of tensors.
#include <mutex>
#include <random>

#include "engine/ops/array_shape_util.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

// The node's Philox state: key and 128-bit counter (TensorFlow's GuardedPhiloxRandom).
class PhiloxStream {
 public:
  void Init(int64_t seed, int64_t seed2) {
    uint64_t lo = static_cast<uint64_t>(seed), hi = static_cast<uint64_t>(seed2);
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      lo = (static_cast<uint64_t>(rd()) << 32) | rd();
      hi = (static_cast<uint64_t>(rd()) << 32) | rd();
    }
    key_[0] = static_cast<uint32_t>(lo), key_[1] = static_cast<uint32_t>(lo >> 32);
    counter_[2] = static_cast<uint32_t>(hi), counter_[3] = static_cast<uint32_t>(hi >> 32);
  }
  // The counter at the start of a fresh range of `steps` 128-bit steps.
  void Reserve(uint64_t steps, uint32_t counter[4]) {
    std::lock_guard<std::mutex> l(mu_);
    for (int i = 0; i < 4; ++i) counter[i] = counter_[i];
    const uint32_t lo = static_cast<uint32_t>(steps);
    uint32_t hi = static_cast<uint32_t>(steps >> 32);
    counter_[0] += lo;
    if (counter_[0] < lo) ++hi;
    counter_[1] += hi;
    if (counter_[1] < hi && ++counter_[2] == 0) ++counter_[3];
  }
  const uint32_t* key() const { return key_; }

 private:
  std::mutex mu_;
  uint32_t key_[2] = {0, 0};
  uint32_t counter_[4] = {0, 0, 0, 0};
};

template <typename T, RandomDist kDist>
class GpuRandomOp : public OpKernel {
 public:
  explicit GpuRandomOp(OpKernelConstruction* c) : OpKernel(c) {
    int64_t seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    stream_.Init(seed, seed2);
  }
  void Compute(OpKernelContext* ctx) override {
    auto shape_t = HostInput(ctx, 0);
    OP_REQUIRES_OK(ctx, shape_t.status());
    OP_REQUIRES(ctx, shape_t->dims() == 1,
                InvalidArgument("shape must be a 1-D tensor, got shape ",
                                shape_t->shape().DebugString()));
    std::vector<int64_t> dims = IntTensorValues(*shape_t);
    OP_REQUIRES_OK(ctx, ValidateShape(dims, "shape " + IntListString(dims)));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t n = out->NumElements();
    uint32_t counter[4];
    stream_.Reserve(static_cast<uint64_t>(n) * 256, counter);
    LaunchPhilox<T>(kDist, stream_.key(), counter, out->data<T>(), n,
                    GpuOf(ctx)->compute_stream());
  }

 private:
  PhiloxStream stream_;
};

// The shape argument is HostMemory (read on the host).
#define FB_REGISTER_RANDOM_OP(op, T, dist)                                                    \
  REGISTER_KERNEL(                                                                            \
      KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint<T>("dtype").HostMemory("shape"), \
      GpuRandomOp<T, RandomDist::dist>)
#define FB_REGISTER_RANDOM(T)                                    \
  FB_REGISTER_RANDOM_OP("RandomUniform", T, kUniform);           \
  FB_REGISTER_RANDOM_OP("RandomStandardNormal", T, kNormal);     \
  FB_REGISTER_RANDOM_OP("TruncatedNormal", T, kTruncatedNormal)
FB_REGISTER_RANDOM(float);
FB_REGISTER_RANDOM(double);
#undef FB_REGISTER_RANDOM
#undef FB_REGISTER_RANDOM_OP

}  // namespace
}  // namespace fb::gpu
