#include "sim/step_variation.h"

#include <cmath>
#include <cstdlib>

namespace fb::sim {
namespace {

// A uniform draw in [0, 1) from (seed, replica, step) and a stream salt: splitmix64's finaliser
// over the mixed inputs (salt 0 is the stragglers' stream, as before compute noise existed).
double Uniform(uint64_t seed, int32_t replica, int64_t step, uint64_t salt) {
  uint64_t x = seed ^ (0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(replica) + 1)) ^
               (0xBF58476D1CE4E5B9ull * (static_cast<uint64_t>(step) + 1)) ^
               (0xD6E8FEB86659FD93ull * salt);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

// strtod over the whole of `text`: false for empty text, trailing characters or a non-finite
// value.
bool ParseFinite(const char* text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text, &end);
  return end != text && *end == '\0' && std::isfinite(*value);
}

}  // namespace

Status ParseComputeNoise(const std::string& text, WorkloadOptions* options) {
  if (text == "off") {
    options->compute_noise_mean = 0;
    return Status::OK();
  }
  double m = -1;
  if (text.rfind("exp:", 0) == 0 && ParseFinite(text.c_str() + 4, &m) && m >= 0 &&
      m <= kMaxComputeNoiseMean) {
    options->compute_noise_mean = m;
    return Status::OK();
  }
  return InvalidArgument("--compute-noise must be off or exp:M with a mean 0 <= M <= ",
                         kMaxComputeNoiseMean,
                         " (a step's compute times 1 + an exponential of mean M), got '", text, "'");
}

Status ParseStartSpread(const std::string& text, WorkloadOptions* options) {
  double s = -1;
  if (!ParseFinite(text.c_str(), &s) || s < 0 || s > kMaxStartSpreadS)
    return InvalidArgument("--start-spread must be a number of seconds in [0, ", kMaxStartSpreadS,
                           "], got '", text, "'");
  options->start_spread_s = s;
  return Status::OK();
}

double ComputeSlowdown(const WorkloadOptions& w, int32_t replica, int64_t step) {
  if (replica < 0) return 1;
  double factor = 1;
  if (w.straggler_probability > 0 && Uniform(w.seed, replica, step, 0) < w.straggler_probability)
    factor = w.straggler_slowdown;
  if (w.compute_noise_mean > 0)
    factor *= 1 - w.compute_noise_mean * std::log1p(-Uniform(w.seed, replica, step, 1));
  return factor;
}

double StartOffsetSeconds(const WorkloadOptions& w, int32_t replica) {
  if (replica <= 0 || w.replicas <= 0) return 0;
  return static_cast<double>(replica) * w.start_spread_s / static_cast<double>(w.replicas);
}

}  // namespace fb::sim
