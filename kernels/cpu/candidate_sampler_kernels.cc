// CPU kernels of UniformCandidateSampler, LogUniformCandidateSampler and ComputeAccidentalHits
// (engine/ops/candidate_sampling_ops.cc), after TensorFlow's candidate_sampler_ops.cc and
// range_sampler.cc: each Run reserves a fresh range of the node's Philox stream and draws the
// whole batch's candidates from it on one thread (unique sampling is sequential rejection).
#include <cfloat>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/guarded_philox_random.h"

namespace fb {
namespace {

using random::GuardedPhiloxRandom;
using random::PhiloxRandom;

// 32- and 64-bit words, unbiased integers in [0, n) and doubles in [0, 1) from a Philox stream
// (TensorFlow's SimplePhilox).
class SimplePhilox {
 public:
  explicit SimplePhilox(PhiloxRandom* gen) : single_(gen) {}
  uint64_t Rand64() {
    const uint64_t lo = single_();
    const uint64_t hi = single_();
    return lo | hi << 32;
  }
  // Rejects the 2^64 mod n lowest words, so that every residue is equally likely.
  uint64_t Uniform64(uint64_t n) {
    const uint64_t threshold = (0 - n) % n;
    uint64_t x = Rand64();
    while (x < threshold) x = Rand64();
    return x % n;
  }
  double RandDouble() {
    const uint32_t x0 = single_();
    const uint32_t x1 = single_();
    return random::Uint64ToDouble(x0, x1);
  }

 private:
  random::SingleSampleAdapter single_;
};

// P(k) = 1 / range.
struct UniformSampler {
  explicit UniformSampler(int64_t range) : range(range) {}
  int64_t Sample(SimplePhilox* rnd) const {
    return static_cast<int64_t>(rnd->Uniform64(static_cast<uint64_t>(range)));
  }
  double Probability(int64_t) const { return 1.0 / static_cast<double>(range); }
  int64_t range;
};

// P(k) = log((k + 2) / (k + 1)) / log(range + 1): floor(exp(u * log(range + 1))) - 1 for u
// uniform in [0, 1), clamped to range - 1 against round-off (TensorFlow takes it modulo range).
struct LogUniformSampler {
  explicit LogUniformSampler(int64_t range)
      : range(range), log_range(std::log1p(static_cast<double>(range))) {}
  int64_t Sample(SimplePhilox* rnd) const {
    const double v = std::exp(rnd->RandDouble() * log_range);  // in [1, range + 1)
    if (v >= static_cast<double>(range)) return range - 1;     // also keeps the cast defined
    return static_cast<int64_t>(v) - 1;
  }
  double Probability(int64_t k) const { return std::log((k + 2.0) / (k + 1.0)) / log_range; }
  int64_t range;
  double log_range;
};

// InvalidArgument unless true_classes is [batch, num_true].
Status CheckTrueClasses(const Tensor& true_classes, int64_t num_true) {
  if (true_classes.dims() == 2 && true_classes.dim_size(1) == num_true) return Status::OK();
  return InvalidArgument("true_classes must be [batch, num_true] with num_true = ", num_true,
                         ", got shape ", true_classes.shape().DebugString());
}

// The expected number of occurrences of a class of probability p among `num_sampled` samples
// that took `tries` draws: p * num_sampled when every draw was kept (unique = false), else
// 1 - (1 - p)^tries, computed stably as -expm1(tries * log1p(-p)).
float ExpectedCount(double p, int64_t num_sampled, int64_t tries) {
  if (tries == num_sampled) return static_cast<float>(p * static_cast<double>(num_sampled));
  return static_cast<float>(-std::expm1(static_cast<double>(tries) * std::log1p(-p)));
}

template <typename Sampler>
class CandidateSamplerOp : public OpKernel {
 public:
  explicit CandidateSamplerOp(OpKernelConstruction* c) : OpKernel(c), sampler_(1) {
    int64_t range_max = 1, seed = 0, seed2 = 0;
    c->SetStatus(c->GetAttr("num_true", &num_true_));
    c->SetStatus(c->GetAttr("num_sampled", &num_sampled_));
    c->SetStatus(c->GetAttr("unique", &unique_));
    c->SetStatus(c->GetAttr("range_max", &range_max));
    c->SetStatus(c->GetAttr("seed", &seed));
    c->SetStatus(c->GetAttr("seed2", &seed2));
    if (range_max >= 1) sampler_ = Sampler(range_max);
    if (unique_ && num_sampled_ > range_max)
      c->SetStatus(
          InvalidArgument("unique sampling needs num_sampled <= range_max, got "
                          "num_sampled ",
                          num_sampled_, " > range_max ", range_max));
    generator_.Init(seed, seed2);
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckTrueClasses(true_classes, num_true_));
    const int64_t* truth = true_classes.data<int64_t>();
    for (int64_t i = 0; i < true_classes.NumElements(); ++i)
      OP_REQUIRES(ctx, truth[i] >= 0 && truth[i] < sampler_.range,
                  InvalidArgument("true_classes", FlatIndexString(true_classes.shape(), i), " = ",
                                  truth[i], " is not in [0, range_max = ", sampler_.range, ")"));
    Tensor *sampled, *true_count, *sampled_count;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{num_sampled_}, &sampled));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, true_classes.shape(), &true_count));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape{num_sampled_}, &sampled_count));
    // TensorFlow reserves 2048 32-bit words per sample; rejection may read past them (reusing
    // bits of a later Run), which TensorFlow accepts too.
    PhiloxRandom gen = generator_.ReserveSamples128(static_cast<uint64_t>(num_sampled_) * 512);
    SimplePhilox rnd(&gen);
    int64_t* out = sampled->data<int64_t>();
    auto tries = Sample(&rnd, out);
    OP_REQUIRES_OK(ctx, tries.status());
    for (int64_t i = 0; i < num_sampled_; ++i)
      sampled_count->data<float>()[i] =
          ExpectedCount(sampler_.Probability(out[i]), num_sampled_, *tries);
    for (int64_t i = 0; i < true_classes.NumElements(); ++i)
      true_count->data<float>()[i] =
          ExpectedCount(sampler_.Probability(truth[i]), num_sampled_, *tries);
  }

 private:
  // Fills out[0, num_sampled) and returns the number of draws it took.
  StatusOr<int64_t> Sample(SimplePhilox* rnd, int64_t* out) const {
    if (!unique_) {
      for (int64_t i = 0; i < num_sampled_; ++i) out[i] = sampler_.Sample(rnd);
      return num_sampled_;
    }
    constexpr int64_t kMaxTries = std::numeric_limits<int32_t>::max();
    std::unordered_set<int64_t> used;
    int64_t picked = 0, tries = 0;
    while (picked < num_sampled_) {
      if (++tries >= kMaxTries)
        return ResourceExhausted("unique sampling drew ", kMaxTries, " candidates and found only ",
                                 picked, " distinct of the ", num_sampled_, " requested");
      const int64_t value = sampler_.Sample(rnd);
      if (used.insert(value).second) out[picked++] = value;
    }
    return tries;
  }

  int64_t num_true_ = 1, num_sampled_ = 1;
  bool unique_ = false;
  Sampler sampler_;
  GuardedPhiloxRandom generator_;
};

class ComputeAccidentalHitsOp : public OpKernel {
 public:
  explicit ComputeAccidentalHitsOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("num_true", &num_true_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    const Tensor& sampled = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckTrueClasses(true_classes, num_true_));
    OP_REQUIRES(ctx, sampled.dims() == 1,
                InvalidArgument("sampled_candidates must be 1-D [num_sampled], got shape ",
                                sampled.shape().DebugString()));
    std::unordered_map<int64_t, int64_t> position;  // the last position of each sampled id
    for (int64_t j = 0; j < sampled.NumElements(); ++j) position[sampled.data<int64_t>()[j]] = j;
    std::vector<int32_t> indices;
    std::vector<int64_t> ids;
    const int64_t* truth = true_classes.data<int64_t>();
    for (int64_t i = 0; i < true_classes.NumElements(); ++i) {
      auto it = position.find(truth[i]);
      if (it == position.end()) continue;
      indices.push_back(static_cast<int32_t>(i / num_true_));
      ids.push_back(it->second);
    }
    const int64_t hits = static_cast<int64_t>(ids.size());
    Tensor *indices_out, *ids_out, *weights_out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{hits}, &indices_out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape{hits}, &ids_out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape{hits}, &weights_out));
    std::copy(indices.begin(), indices.end(), indices_out->data<int32_t>());
    std::copy(ids.begin(), ids.end(), ids_out->data<int64_t>());
    std::fill(weights_out->data<float>(), weights_out->data<float>() + hits, -FLT_MAX);
  }

 private:
  int64_t num_true_ = 1;
};

REGISTER_KERNEL(KernelDefBuilder("UniformCandidateSampler").Device(DEVICE_CPU),
                CandidateSamplerOp<UniformSampler>);
REGISTER_KERNEL(KernelDefBuilder("LogUniformCandidateSampler").Device(DEVICE_CPU),
                CandidateSamplerOp<LogUniformSampler>);
REGISTER_KERNEL(KernelDefBuilder("ComputeAccidentalHits").Device(DEVICE_CPU),
                ComputeAccidentalHitsOp);

}  // namespace
}  // namespace fb
