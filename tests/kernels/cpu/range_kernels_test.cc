// Range against hand-computed sequences (NumPy's arange gives the same values) for int32, int64,
// float and double, increasing and decreasing, the graph-time shape from constant inputs, and
// the errors for delta 0, a delta pointing away from limit, non-finite and oversized ranges.
#include <limits>

#include "tests/engine/ops/array_test_util.h"
#include "tests/kernels/cpu/math_test_util.h"

namespace fb {
namespace {

using test::D;
using test::Eval;
using test::EvalError;
using test::ExpectEqual;
using test::F;
using test::I;
using test::L;

template <typename T>
Tensor RangeOf(T start, T limit, T delta) {
  return Eval([&](const Scope& s) {
    return ops::Range(s, ops::Const(s, Tensor::Scalar<T>(start)),
                      ops::Const(s, Tensor::Scalar<T>(limit)),
                      ops::Const(s, Tensor::Scalar<T>(delta)));
  });
}

template <typename T>
std::string RangeError(T start, T limit, T delta) {
  // Placeholders, so that the kernel (not the shape function) reports the error.
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DataTypeToEnum<T>::value);
  auto b = ops::Placeholder(root.WithOpName("b"), DataTypeToEnum<T>::value);
  auto c = ops::Placeholder(root.WithOpName("c"), DataTypeToEnum<T>::value);
  auto r = ops::Range(root.WithOpName("rng"), a, b, c);
  return test::RunError(root, r,
                        {{a, Tensor::Scalar<T>(start)},
                         {b, Tensor::Scalar<T>(limit)},
                         {c, Tensor::Scalar<T>(delta)}});
}

TEST_CASE("Range counts up and down, excluding limit", "[math][range]") {
  ExpectEqual(RangeOf<int32_t>(0, 5, 1), I({0, 1, 2, 3, 4}, {5}));
  ExpectEqual(RangeOf<int32_t>(3, 10, 3), I({3, 6, 9}, {3}));
  ExpectEqual(RangeOf<int32_t>(5, -1, -2), I({5, 3, 1}, {3}));
  ExpectEqual(RangeOf<int32_t>(4, 4, 1), I({}, {0}));
  ExpectEqual(RangeOf<int64_t>(1LL << 40, (1LL << 40) + 3, 1),
              L({1LL << 40, (1LL << 40) + 1, (1LL << 40) + 2}, {3}));
  // The whole int64 span in three steps: start + i * delta computed without overflow.
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  ExpectEqual(RangeOf<int64_t>(lo, hi, hi), L({lo, -1, hi - 1}, {3}));
  ExpectEqual(RangeOf<float>(0, 1, 0.25f), F({0, 0.25f, 0.5f, 0.75f}, {4}));
  ExpectEqual(RangeOf<float>(1, 0, -0.5f), F({1, 0.5f}, {2}));
  ExpectEqual(RangeOf<double>(0.5, 2, 0.5), D({0.5, 1, 1.5}, {3}));
  ExpectEqual(RangeOf<double>(0, 1, 0.3), D({0, 0.3, 0.6, 0.8999999999999999}, {4}));
}

TEST_CASE("Range's shape is known at graph time from constant inputs", "[math][range]") {
  Tensor a = Tensor::Scalar<int32_t>(2), b = Tensor::Scalar<int32_t>(11),
         c = Tensor::Scalar<int32_t>(3);
  CHECK(test::InferredShape("Range", {}, {TensorShape{}, TensorShape{}, TensorShape{}},
                            {&a, &b, &c}) == "[3]");
  CHECK(test::InferredShape("Range", {}, {TensorShape{}, TensorShape{}, TensorShape{}}) == "[?]");
  Tensor zero = Tensor::Scalar<int32_t>(0);
  CHECK_THAT(test::InferredShape("Range", {}, {TensorShape{}, TensorShape{}, TensorShape{}},
                                 {&a, &b, &zero}),
             Catch::Contains("Range 'n'") && Catch::Contains("delta must not be 0"));
  CHECK_THAT(test::InferredShape("Range", {}, {TensorShape{2}, TensorShape{}, TensorShape{}}),
             Catch::Contains("Range 'n'"));
}

TEST_CASE("Range rejects delta 0, a wrong direction and huge or non-finite ranges",
          "[math][range]") {
  CHECK_THAT(RangeError<int32_t>(0, 5, 0),
             Catch::Contains("'rng'") && Catch::Contains("delta must not be 0"));
  CHECK_THAT(RangeError<int32_t>(5, 1, 1),
             Catch::Contains("'rng'") && Catch::Contains("start 5 must be <= limit 1"));
  CHECK_THAT(RangeError<int64_t>(1, 5, -1),
             Catch::Contains("'rng'") && Catch::Contains("start 1 must be >= limit 5"));
  CHECK_THAT(RangeError<int64_t>(std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max(), 1),
             Catch::Contains("'rng'") && Catch::Contains("more than the limit"));
  CHECK_THAT(RangeError<float>(0, 1e30f, 1e-10f),
             Catch::Contains("'rng'") && Catch::Contains("more than the limit"));
  CHECK_THAT(RangeError<double>(0, std::numeric_limits<double>::infinity(), 1),
             Catch::Contains("'rng'") && Catch::Contains("must be finite"));
  CHECK_THAT(RangeError<float>(0, 1, std::numeric_limits<float>::quiet_NaN()),
             Catch::Contains("'rng'") && Catch::Contains("must be finite"));
  // Operands of different types are rejected when the graph is built.
  std::string msg = EvalError([](const Scope& s) {
    return ops::Range(s.WithOpName("mixed"), ops::Const(s, Tensor::Scalar<int32_t>(0)),
                      ops::Const(s, Tensor::Scalar<float>(3)),
                      ops::Const(s, Tensor::Scalar<int32_t>(1)));
  });
  CHECK_THAT(msg, Catch::Contains("mixed"));
}

TEST_CASE("Range with non-scalar operands fails naming the node", "[math][range]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DataType::kInt32);
  auto r = ops::Range(root.WithOpName("vec"), a, ops::Const(root, Tensor::Scalar<int32_t>(4)),
                      ops::Const(root, Tensor::Scalar<int32_t>(1)));
  CHECK_THAT(test::RunError(root, r, {{a, I({0, 1}, {2})}}),
             Catch::Contains("'vec'") && Catch::Contains("start must be a scalar, got shape [2]"));
}

}  // namespace
}  // namespace fb
