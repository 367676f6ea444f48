// Philox 4x32-10 against the Random123 known-answer vectors (tests/kat_vectors of
// github.com/DEShawResearch/random123: counter[4] key[2] -> output[4]), and the bit-to-float
// conversions and Box-Muller transform against closed forms.
#include "kernels/cpu/philox_random.h"

#include <cmath>

#include <catch2/catch.hpp>

namespace fb::random {
namespace {

TEST_CASE("Philox 4x32-10 reproduces the Random123 known-answer vectors", "[array][random]") {
  struct Kat {
    PhiloxRandom::ResultType counter;
    PhiloxRandom::Key key;
    PhiloxRandom::ResultType expected;
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    PhiloxRandom gen(k.counter, k.key);
    CHECK(gen() == k.expected);
  }
}

TEST_CASE("Philox Skip(n) equals n draws, carrying across 32-bit words", "[array][random]") {
  PhiloxRandom a(0x12345678abcdefULL, 42), b = a;
  for (int i = 0; i < 1000; ++i) a();
  b.Skip(1000);
  CHECK(a() == b());
  // Counter word 0 at its maximum: one step carries into word 1.
  PhiloxRandom c({0xffffffff, 7, 1, 2}, {3, 4});
  c.Skip(1);
  PhiloxRandom d({0, 8, 1, 2}, {3, 4});
  CHECK(c() == d());
  PhiloxRandom e({5, 0xffffffff, 1, 2}, {3, 4});
  e.Skip(uint64_t{1} << 32);
  PhiloxRandom f({5, 0, 2, 2}, {3, 4});
  CHECK(e() == f());
}

TEST_CASE("TensorFlow seeding puts seed in the key and seed2 in the counter", "[array][random]") {
  PhiloxRandom seeded(0x0000000200000001ULL, 0x0000000400000003ULL);
  PhiloxRandom explicit_state({0, 0, 3, 4}, {1, 2});
  CHECK(seeded() == explicit_state());
}

TEST_CASE("Bits map to uniforms on the unit interval and Box-Muller normals", "[array][random]") {
  CHECK(Uint32ToFloat(0) == 0.0f);
  CHECK(Uint32ToFloat(0xffffffff) == 1.0f - std::ldexp(1.0f, -23));
  CHECK(Uint32ToFloat(0x400000) == 0.5f);
  CHECK(Uint64ToDouble(0, 0) == 0.0);
  CHECK(Uint64ToDouble(0xffffffff, 0xffffffff) == 1.0 - std::ldexp(1.0, -52));
  CHECK(static_cast<float>(Uint16ToHalf(0xffff)) == 1.0f - std::ldexp(1.0f, -10));
  CHECK(static_cast<float>(Uint16ToBfloat16(0x40)) == 0.5f);
  // u1 = 0.5, u2 = 0: (sin 0, cos 0) * sqrt(-2 ln 0.5).
  float f0, f1;
  BoxMullerFloat(0x400000, 0, &f0, &f1);
  CHECK(f0 == 0.0f);
  CHECK(f1 == Approx(std::sqrt(2 * std::log(2.0))).epsilon(1e-6));
  double d0, d1;
  BoxMullerDouble(0x80000, 0, 0x40000, 0, &d0, &d1);  // u1 = 0.5, u2 = 0.25
  CHECK(d0 == Approx(std::sqrt(2 * std::log(2.0))).epsilon(1e-12));
  CHECK(std::abs(d1) < 1e-12);
}

TEST_CASE("Truncated normal samples stay within two standard deviations", "[array][random]") {
  PhiloxRandom gen(7, 9);
  SingleSampleAdapter single(&gen);
  TruncatedNormalDistribution<float> dist;
  for (int i = 0; i < 10000; ++i)
    for (float v : dist(&single)) REQUIRE(std::abs(v) < 2.0f);
}

}  // namespace
}  // namespace fb::random
