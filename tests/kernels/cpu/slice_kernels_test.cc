// Slice, Pad and Split kernels: values computed by hand from 0, 1, 2, ... inputs.
#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::Iota;
using test::RunError;
using test::RunScope;
using test::Values;

TEST_CASE("Slice cuts boxes out of 2-D and 3-D tensors, size -1 to the end", "[array]") {
  Scope root = Scope::NewRootScope();
  auto m = ops::Const(root, Iota({3, 4}));  // rows [0..3], [4..7], [8..11]
  auto t = ops::Const(root, Iota({2, 3, 4}));
  auto out = RunScope(root, {ops::Slice(root, m, {1, 1}, {2, 2}), ops::Slice(root, m, {1, 0}, {-1, -1}),
                             ops::Slice(root, t, {1, 0, 2}, {1, -1, 2}),
                             ops::Slice(root, m, {0, 4}, {3, 0})});
  CHECK(out[0].shape() == TensorShape{2, 2});
  CHECK(Values<float>(out[0]) == std::vector<float>{5, 6, 9, 10});
  CHECK(out[1].shape() == TensorShape{2, 4});
  CHECK(Values<float>(out[1]) == std::vector<float>{4, 5, 6, 7, 8, 9, 10, 11});
  CHECK(out[2].shape() == TensorShape{1, 3, 2});
  CHECK(Values<float>(out[2]) == std::vector<float>{14, 15, 18, 19, 22, 23});
  CHECK(out[3].shape() == TensorShape{3, 0});
}

TEST_CASE("Slice takes int64 begin and size", "[array]") {
  Scope root = Scope::NewRootScope();
  auto m = ops::Const(root, Iota({4}));
  auto out = RunScope(root, {ops::Slice(root, m, ops::Const(root, test::I64({2})),
                                        ops::Const(root, test::I64({2})))});
  CHECK(Values<float>(out[0]) == std::vector<float>{2, 3});
}

TEST_CASE("Slice out of bounds fails naming the node and the dimension", "[array]") {
  Scope root = Scope::NewRootScope();
  auto s = ops::Slice(root.WithOpName("cut"), ops::Const(root, Iota({3, 4})), {1, 2}, {2, 3});
  CHECK_THAT(RunError(root, s), Catch::Contains("Slice 'cut'") &&
                                    Catch::Contains("begin[1] = 2 with size[1] = 3 exceeds dimension 1"));
  Scope rank = Scope::NewRootScope();
  auto r = ops::Slice(rank.WithOpName("r"), ops::Const(rank, Iota({3, 4})), {1}, {2});
  CHECK_THAT(RunError(rank, r), Catch::Contains("one entry per dimension"));
}

TEST_CASE("Pad surrounds a tensor with zeros", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Iota({2, 2}));
  auto out = RunScope(root, {ops::Pad(root, x, {{1, 0}, {0, 2}})});
  CHECK(out[0].shape() == TensorShape{3, 4});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 0, 0, 0, 0, 1, 0, 0, 2, 3, 0, 0});
  Scope bad = Scope::NewRootScope();
  auto p = ops::Pad(bad.WithOpName("p"), ops::Const(bad, Iota({2})), {{-1, 0}});
  CHECK_THAT(RunError(bad, p), Catch::Contains("Pad 'p'") && Catch::Contains("must be >= 0"));
}

TEST_CASE("Split cuts equal pieces along positive and negative axes", "[array]") {
  Scope root = Scope::NewRootScope();
  auto m = ops::Const(root, Iota({2, 4}));
  auto rows = ops::Split(root, m, 0, 2);
  auto cols = ops::Split(root, m, -1, 2);
  REQUIRE(rows.size() == 2);
  REQUIRE(cols.size() == 2);
  auto out = RunScope(root, {rows[0], rows[1], cols[0], cols[1]});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 1, 2, 3});
  CHECK(Values<float>(out[1]) == std::vector<float>{4, 5, 6, 7});
  CHECK(out[2].shape() == TensorShape{2, 2});
  CHECK(Values<float>(out[2]) == std::vector<float>{0, 1, 4, 5});
  CHECK(Values<float>(out[3]) == std::vector<float>{2, 3, 6, 7});
}

TEST_CASE("Split of a dimension that does not divide fails", "[array]") {
  Scope root = Scope::NewRootScope();
  auto parts = ops::Split(root.WithOpName("sp"), ops::Const(root, Iota({2, 3})), 1, 2);
  CHECK_THAT(RunError(root, parts[0]),
             Catch::Contains("Split 'sp'") && Catch::Contains("not divisible by num_split 2"));
}

}  // namespace
}  // namespace fb
