// Philox random CUDA kernels: the device side of kernels/cpu/philox_random.h (Salmon et al.,
// SC'11; TensorFlow's random_distributions.h). One thread per output group, each computing its
// counter from the group index exactly as the CPU kernel's FillPhiloxRandom does, so uniform
// outputs are bit-identical to the CPU's and normal outputs differ only by the device's sin, cos
// and log rounding. The host header cannot be reused on the device (std::array, std::memcpy,
// Eigen half); the 30 lines of Philox below mirror it and the GPU tests compare the two.
#include "kernels/cuda/gpu_launch.h"

namespace fb::gpu {
namespace {

constexpr int kThreads = 128;

struct Philox {
  uint32_t c[4];
  uint32_t k[2];

  __device__ void Skip(uint64_t count) {
    const uint32_t lo = static_cast<uint32_t>(count);
    uint32_t hi = static_cast<uint32_t>(count >> 32);
    c[0] += lo;
    if (c[0] < lo) ++hi;
    c[1] += hi;
    if (c[1] < hi && ++c[2] == 0) ++c[3];
  }
  // 128 random bits from the current counter, then counter + 1.
  __device__ void Next(uint32_t out[4]) {
    uint32_t x[4] = {c[0], c[1], c[2], c[3]};
    uint32_t key0 = k[0], key1 = k[1];
    for (int round = 0; round < 10; ++round) {
      if (round > 0) {
        key0 += 0x9E3779B9u;
        key1 += 0xBB67AE85u;
      }
      const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * x[0];
      const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * x[2];
      const uint32_t y0 = static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ key0;
      const uint32_t y2 = static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ key1;
      x[0] = y0, x[1] = static_cast<uint32_t>(p1), x[2] = y2, x[3] = static_cast<uint32_t>(p0);
    }
    for (int i = 0; i < 4; ++i) out[i] = x[i];
    Skip(1);
  }
};

__device__ float ToFloat(uint32_t x) { return __uint_as_float((127u << 23) | (x & 0x7fffffu)) - 1.0f; }
__device__ double ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) | (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  return __longlong_as_double(static_cast<long long>(bits)) - 1.0;
}
__device__ void BoxMuller(uint32_t x0, uint32_t x1, float* f0, float* f1) {
  float u1 = ToFloat(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = 2.0f * 3.14159265358979323846f * ToFloat(x1);
  const float u2 = sqrtf(-2.0f * logf(u1));
  *f0 = sinf(v1) * u2;
  *f1 = cosf(v1) * u2;
}
__device__ void BoxMuller(uint32_t x0, uint32_t x1, uint32_t x2, uint32_t x3, double* d0,
                          double* d1) {
  double u1 = ToDouble(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2.0 * 3.14159265358979323846 * ToDouble(x2, x3);
  const double u2 = sqrt(-2.0 * log(u1));
  *d0 = sin(v1) * u2;
  *d1 = cos(v1) * u2;
}

// Outputs per 128-bit step: 4 for float, 2 for double.
template <typename T>
constexpr int kGroup = sizeof(T) == 8 ? 2 : 4;

template <typename T>
__device__ void FromWords(RandomDist dist, const uint32_t s[4], T r[kGroup<T>]) {
  if constexpr (sizeof(T) == 8) {
    if (dist == RandomDist::kUniform) r[0] = ToDouble(s[0], s[1]), r[1] = ToDouble(s[2], s[3]);
    else BoxMuller(s[0], s[1], s[2], s[3], &r[0], &r[1]);
  } else {
    if (dist == RandomDist::kUniform) {
      for (int i = 0; i < 4; ++i) r[i] = ToFloat(s[i]);
    } else {
      BoxMuller(s[0], s[1], &r[0], &r[1]);
      BoxMuller(s[2], s[3], &r[2], &r[3]);
    }
  }
}

// Rejection sampling of |x| < 2 from single 32-bit words (TruncatedNormalDistribution).
template <typename T>
__device__ void Truncated(Philox* gen, T r[kGroup<T>]) {
  uint32_t words[4];
  int used = 4, index = 0;
  auto word = [&]() {
    if (used == 4) gen->Next(words), used = 0;
    return words[used++];
  };
  while (index < kGroup<T>) {
    double v[2];
    if constexpr (sizeof(T) == 8) {
      const uint32_t x0 = word(), x1 = word(), x2 = word(), x3 = word();
      BoxMuller(x0, x1, x2, x3, &v[0], &v[1]);
    } else {
      const uint32_t x0 = word(), x1 = word();
      float f0, f1;
      BoxMuller(x0, x1, &f0, &f1);
      v[0] = f0, v[1] = f1;
    }
    for (int k = 0; k < 2 && index < kGroup<T>; ++k)
      if (fabs(v[k]) < 2.0) r[index++] = static_cast<T>(v[k]);
  }
}

template <typename T>
__global__ void PhiloxKernel(RandomDist dist, Philox base, T* out, int64_t n) {
  const int64_t groups = (n + kGroup<T> - 1) / kGroup<T>;
  for (int64_t g = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; g < groups;
       g += int64_t{blockDim.x} * gridDim.x) {
    Philox gen = base;
    T r[kGroup<T>];
    if (dist == RandomDist::kTruncatedNormal) {
      gen.Skip(static_cast<uint64_t>(g) * kGroup<T> * 256 / 4);
      Truncated<T>(&gen, r);
    } else {
      gen.Skip(static_cast<uint64_t>(g));
      uint32_t words[4];
      gen.Next(words);
      FromWords<T>(dist, words, r);
    }
    for (int i = 0; i < kGroup<T> && g * kGroup<T> + i < n; ++i) out[g * kGroup<T> + i] = r[i];
  }
}

}  // namespace

template <typename T>
void LaunchPhilox(RandomDist dist, const uint32_t key[2], const uint32_t counter[4], T* out,
                  int64_t n, cudaStream_t s) {
  if (n == 0) return;
  Philox base{{counter[0], counter[1], counter[2], counter[3]}, {key[0], key[1]}};
  int64_t groups = (n + kGroup<T> - 1) / kGroup<T>;
  int64_t blocks = (groups + kThreads - 1) / kThreads;
  if (blocks > 65535 * 8) blocks = 65535 * 8;
  PhiloxKernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(dist, base, out, n);
}

template void LaunchPhilox<float>(RandomDist, const uint32_t*, const uint32_t*, float*, int64_t,
                                  cudaStream_t);
template void LaunchPhilox<double>(RandomDist, const uint32_t*, const uint32_t*, double*, int64_t,
                                   cudaStream_t);

}  // namespace fb::gpu
