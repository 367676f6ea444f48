// Transpose and InvertPermutation kernels, against hand values and a direct index loop.
#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::Iota;
using test::RunError;
using test::RunScope;
using test::Values;

TEST_CASE("Transpose of a matrix swaps rows and columns", "[array]") {
  Scope root = Scope::NewRootScope();
  auto out = RunScope(root, {ops::Transpose(root, ops::Const(root, Iota({2, 3})), {1, 0})});
  CHECK(out[0].shape() == TensorShape{3, 2});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("Transpose of a 4-D tensor matches a direct index loop on 4 threads", "[array]") {
  const std::vector<int64_t> dims{3, 5, 7, 11}, perm{2, 0, 3, 1};
  Scope root = Scope::NewRootScope();
  auto out = RunScope(root, {ops::Transpose(root, ops::Const(root, Iota(TensorShape(dims))), perm)},
                      {}, /*threads=*/4);
  REQUIRE(out[0].shape() == TensorShape{7, 3, 11, 5});
  const float* y = out[0].data<float>();
  int64_t k = 0;
  for (int64_t i0 = 0; i0 < 7; ++i0)
    for (int64_t i1 = 0; i1 < 3; ++i1)
      for (int64_t i2 = 0; i2 < 11; ++i2)
        for (int64_t i3 = 0; i3 < 5; ++i3) {
          // y[i0,i1,i2,i3] = x[a=i1, b=i3, c=i0, d=i2]
          int64_t src = ((i1 * 5 + i3) * 7 + i0) * 11 + i2;
          REQUIRE(y[k++] == static_cast<float>(src));
        }
}

TEST_CASE("Transpose with a bad perm fails naming the node", "[array]") {
  Scope root = Scope::NewRootScope();
  auto t = ops::Transpose(root.WithOpName("t"), ops::Const(root, Iota({2, 3})), {0, 0});
  CHECK_THAT(RunError(root, t), Catch::Contains("Transpose 't'") &&
                                    Catch::Contains("perm [0,0] is not a permutation of [0, 2)"));
  Scope rank = Scope::NewRootScope();
  auto r = ops::Transpose(rank.WithOpName("r"), ops::Const(rank, Iota({2, 3})), {0, 1, 2});
  CHECK_THAT(RunError(rank, r), Catch::Contains("has 3 entries for input of rank 2"));
}

TEST_CASE("InvertPermutation inverts and rejects non-permutations", "[array]") {
  Scope root = Scope::NewRootScope();
  auto out = RunScope(root, {ops::InvertPermutation(root, ops::Const(root, test::I32({2, 0, 3, 1}))),
                             ops::InvertPermutation(root, ops::Const(root, test::I64({1, 0})))});
  CHECK(Values<int32_t>(out[0]) == std::vector<int32_t>{1, 3, 0, 2});
  CHECK(Values<int64_t>(out[1]) == std::vector<int64_t>{1, 0});
  Scope bad = Scope::NewRootScope();
  auto dup = ops::InvertPermutation(bad.WithOpName("dup"), ops::Const(bad, test::I32({0, 0})));
  CHECK_THAT(RunError(bad, dup), Catch::Contains("0 appears twice"));
  Scope range = Scope::NewRootScope();
  auto big = ops::InvertPermutation(range.WithOpName("big"), ops::Const(range, test::I32({0, 5})));
  CHECK_THAT(RunError(range, big), Catch::Contains("x[1] = 5 is not in [0, 2)"));
}

}  // namespace
}  // namespace fb
