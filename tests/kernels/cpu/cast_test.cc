// Cast between numeric types, bool, half and bfloat16, against hand-computed conversions.
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::B;
using test::D;
using test::Eval;
using test::ExpectEqual;
using test::F;
using test::I;
using test::L;

Tensor Cast(const Tensor& x, DataType to) {
  return Eval([&](const Scope& s) { return ops::Cast(s, ops::Const(s, x), to); });
}

TEST_CASE("Cast float to integers truncates toward zero", "[math][cast]") {
  ExpectEqual(Cast(F({1.9f, -1.9f, 0.5f}, {3}), DataType::kInt32), I({1, -1, 0}, {3}));
  ExpectEqual(Cast(D({3e10}, {}), DataType::kInt64), L({30000000000LL}, {}));
  Tensor u8 = Cast(F({200.7f, 3}, {2}), DataType::kUInt8);
  CHECK(test::Values<uint8_t>(u8) == std::vector<uint8_t>{200, 3});
}

TEST_CASE("Cast to and from bool", "[math][cast]") {
  ExpectEqual(Cast(F({0, -0.5f, 2}, {3}), DataType::kBool), B({false, true, true}, {3}));
  ExpectEqual(Cast(B({true, false}, {2}), DataType::kDouble), D({1, 0}, {2}));
  ExpectEqual(Cast(B({true}, {1}), DataType::kInt64), L({1}, {1}));
}

TEST_CASE("Cast through half and bfloat16 rounds to their precision", "[math][cast]") {
  // 1 + 2^-11 is halfway between the halves 1 and 1 + 2^-10: rounds to even (1).
  Tensor h = Cast(F({1.0f + 1.0f / 2048, 65504, 0.1f}, {3}), DataType::kHalf);
  ExpectEqual(Cast(h, DataType::kFloat), F({1, 65504, 0.0999755859375f}, {3}));
  // bfloat16 keeps 8 significant bits: 1 + 2^-7 stays, 1 + 2^-9 rounds to 1.
  Tensor bf = Cast(D({1 + 1.0 / 128, 1 + 1.0 / 512, -3}, {3}), DataType::kBFloat16);
  ExpectEqual(Cast(bf, DataType::kDouble), D({1 + 1.0 / 128, 1, -3}, {3}));
  ExpectEqual(Cast(Cast(I({-7, 300}, {2}), DataType::kHalf), DataType::kInt32), I({-7, 300}, {2}));
}

TEST_CASE("Cast between integer widths and to floating point", "[math][cast]") {
  ExpectEqual(Cast(L({-5, 1LL << 33}, {2}), DataType::kDouble), D({-5, 8589934592.0}, {2}));
  ExpectEqual(Cast(I({-1, 70000}, {2}), DataType::kInt64), L({-1, 70000}, {2}));
  Tensor i16 = Cast(I({-3, 1234}, {2}), DataType::kInt16);
  CHECK(test::Values<int16_t>(i16) == std::vector<int16_t>{-3, 1234});
  // To the same type the input passes through.
  ExpectEqual(Cast(F({1.5f}, {1}), DataType::kFloat), F({1.5f}, {1}));
}

TEST_CASE("Cast rejects non-numeric types", "[math][cast][errors]") {
  std::string msg = test::EvalError([](const Scope& s) {
    return ops::Cast(s.WithOpName("c"), ops::Const(s, F({1}, {1})), DataType::kString);
  });
  CHECK_THAT(msg, Catch::Contains("'c'") && Catch::Contains("attr 'DstT' is string"));
}

}  // namespace
}  // namespace fb
