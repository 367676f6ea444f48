// ConcatV2, Concat, ConcatOffset, Pack, Unpack and Split kernels: values computed by hand.
#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::Iota;
using test::RunError;
using test::RunScope;
using test::Values;

TEST_CASE("Concat joins along axis 0, 1 and -1", "[array]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, Iota({2, 2}));                                     // 0 1 / 2 3
  auto b = ops::Const(root, std::vector<float>{10, 11, 12, 13, 14, 15}, {2, 3});  // 10 11 12 / ...
  auto c = ops::Const(root, std::vector<float>{20, 21}, {1, 2});
  auto out = RunScope(root, {ops::Concat(root, {a, b}, 1), ops::Concat(root, {a, b}, -1),
                             ops::Concat(root, {a, c, a}, 0)});
  CHECK(out[0].shape() == TensorShape{2, 5});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 1, 10, 11, 12, 2, 3, 13, 14, 15});
  CHECK(Values<float>(out[1]) == Values<float>(out[0]));
  CHECK(out[2].shape() == TensorShape{5, 2});
  CHECK(Values<float>(out[2]) == std::vector<float>{0, 1, 2, 3, 20, 21, 0, 1, 2, 3});
}

TEST_CASE("Concat takes an int64 axis and TensorFlow's axis-first Concat", "[array]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, Iota({2}));
  auto v2 = ops::Concat(root, {a, a}, ops::Const(root, Tensor::Scalar<int64_t>(0)));
  Node* v1 = ops::AddOpWithList(root, "Concat", {{ops::Const(root, Tensor::Scalar<int32_t>(0))}, {a, a, a}});
  auto out = RunScope(root, {v2, Output(v1, 0)});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 1, 0, 1});
  CHECK(Values<float>(out[1]) == std::vector<float>{0, 1, 0, 1, 0, 1});
}

TEST_CASE("Concat of mismatched shapes fails naming the node and the shapes", "[array]") {
  Scope root = Scope::NewRootScope();
  auto c = ops::Concat(root.WithOpName("cat"), {ops::Const(root, Iota({2, 2})), ops::Const(root, Iota({3, 3}))}, 0);
  CHECK_THAT(RunError(root, c), Catch::Contains("ConcatV2 'cat'") &&
                                    Catch::Contains("input 1 has shape [3,3] but input 0 has shape [2,2]"));
  Scope axis = Scope::NewRootScope();
  auto d = ops::Concat(axis.WithOpName("d"), {ops::Const(axis, Iota({2})), ops::Const(axis, Iota({2}))}, 1);
  CHECK_THAT(RunError(axis, d), Catch::Contains("axis 1 is out of range [-1, 1)"));
}

TEST_CASE("ConcatOffset gives where each piece starts", "[array]") {
  Scope root = Scope::NewRootScope();
  auto dim = ops::Const(root, Tensor::Scalar<int32_t>(1));
  auto offs = ops::ConcatOffset(root, dim, {ops::Const(root, test::I32({2, 3, 5})),
                                            ops::Const(root, test::I32({2, 7, 5})),
                                            ops::Const(root, test::I32({2, 1, 5}))});
  REQUIRE(offs.size() == 3);
  auto out = RunScope(root, offs);
  CHECK(Values<int32_t>(out[0]) == std::vector<int32_t>{0, 0, 0});
  CHECK(Values<int32_t>(out[1]) == std::vector<int32_t>{0, 3, 0});
  CHECK(Values<int32_t>(out[2]) == std::vector<int32_t>{0, 10, 0});
  Scope bad = Scope::NewRootScope();
  auto o = ops::ConcatOffset(bad.WithOpName("o"), ops::Const(bad, Tensor::Scalar<int32_t>(0)),
                             {ops::Const(bad, test::I32({2, 3})), ops::Const(bad, test::I32({2, 4}))});
  CHECK_THAT(RunError(bad, o[0]), Catch::Contains("shape 1 = [2,4] does not match shape 0 = [2,3]"));
}

TEST_CASE("Pack stacks along a new axis and Unpack inverts it", "[array]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, std::vector<float>{1, 2, 3}, {3});
  auto b = ops::Const(root, std::vector<float>{4, 5, 6}, {3});
  auto p0 = ops::Pack(root, {a, b});
  auto p1 = ops::Pack(root, {a, b}, -1);
  auto u = ops::Unpack(root, p1, 3, 0);
  auto w = ops::Unpack(root, p1, 2, 1);
  REQUIRE(u.size() == 3);
  REQUIRE(w.size() == 2);
  auto out = RunScope(root, {p0, p1, u[1], w[1]});
  CHECK(out[0].shape() == TensorShape{2, 3});
  CHECK(Values<float>(out[0]) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(out[1].shape() == TensorShape{3, 2});
  CHECK(Values<float>(out[1]) == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK(out[2].shape() == TensorShape{2});
  CHECK(Values<float>(out[2]) == std::vector<float>{2, 5});
  CHECK(Values<float>(out[3]) == std::vector<float>{4, 5, 6});
  Scope bad = Scope::NewRootScope();
  auto v = ops::Unpack(bad.WithOpName("un"), ops::Const(bad, Iota({2, 3})), 3, 0);
  CHECK_THAT(RunError(bad, v[0]), Catch::Contains("cannot unpack 3 tensors from dimension 0"));
}

// Split and Unpack share one cut (concat_kernels.cc): the piece's width along the copied rows is
// its element count over the rows before the axis, and empty values copy nothing.
TEST_CASE("Split and Unpack cut inner axes of 3-D and empty tensors", "[array]") {
  Scope root = Scope::NewRootScope();
  auto split = ops::Split(root, ops::Const(root, Iota({2, 4, 3})), 1, 2);
  auto unpack = ops::Unpack(root, ops::Const(root, Iota({2, 3, 2})), 3, 1);
  auto empty_split = ops::Split(root, ops::Const(root, Iota({2, 0, 4})), 2, 2);
  auto empty_unpack = ops::Unpack(root, ops::Const(root, Iota({0, 2})), 2, 1);
  REQUIRE(split.size() == 2);
  REQUIRE(unpack.size() == 3);
  auto out = RunScope(root, {split[0], split[1], unpack[1], empty_split[1], empty_unpack[0]});
  CHECK(out[0].shape() == TensorShape{2, 2, 3});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 1, 2, 3, 4, 5, 12, 13, 14, 15, 16, 17});
  CHECK(Values<float>(out[1]) == std::vector<float>{6, 7, 8, 9, 10, 11, 18, 19, 20, 21, 22, 23});
  CHECK(out[2].shape() == TensorShape{2, 2});
  CHECK(Values<float>(out[2]) == std::vector<float>{2, 3, 8, 9});
  CHECK(out[3].shape() == TensorShape{2, 0, 2});
  CHECK(out[4].shape() == TensorShape{0});
}

}  // namespace
}  // namespace fb
