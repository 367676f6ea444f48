// Shape, Rank, Size, Reshape, ExpandDims, Squeeze kernels: values computed by hand.
#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::Iota;
using test::RunError;
using test::RunScope;
using test::Values;

TEST_CASE("Shape, Rank and Size report a tensor's dimensions", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Iota({2, 3, 4}));
  auto out = RunScope(root, {ops::Shape(root, x), ops::Shape(root, x, DataType::kInt64),
                             ops::Rank(root, x), ops::Size(root, x),
                             ops::Size(root, x, DataType::kInt64)});
  CHECK(Values<int32_t>(out[0]) == std::vector<int32_t>{2, 3, 4});
  CHECK(Values<int64_t>(out[1]) == std::vector<int64_t>{2, 3, 4});
  CHECK(out[2].scalar<int32_t>() == 3);
  CHECK(out[3].scalar<int32_t>() == 24);
  CHECK(out[4].scalar<int64_t>() == 24);
}

TEST_CASE("Shape of a scalar is an empty vector, its Size is 1", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, 5.0f);
  auto out = RunScope(root, {ops::Shape(root, x), ops::Size(root, x), ops::Rank(root, x)});
  CHECK(out[0].shape() == TensorShape{0});
  CHECK(out[1].scalar<int32_t>() == 1);
  CHECK(out[2].scalar<int32_t>() == 0);
}

TEST_CASE("Reshape infers one -1 dimension and keeps row-major order", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Iota({2, 3}));
  auto out = RunScope(root, {ops::Reshape(root, x, {3, -1}), ops::Reshape(root, x, {-1}),
                             ops::Reshape(root, ops::Const(root, Iota({1})), std::vector<int64_t>{})});
  CHECK(out[0].shape() == TensorShape{3, 2});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(out[1].shape() == TensorShape{6});
  CHECK(out[2].shape() == TensorShape{});
}

TEST_CASE("Reshape takes an int64 shape", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Iota({4}));
  auto shape = ops::Const(root, test::I64({2, 2}));
  auto out = RunScope(root, {ops::Reshape(root, x, shape)});
  CHECK(out[0].shape() == TensorShape{2, 2});
}

TEST_CASE("Reshape errors name the node and both shapes", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
  auto two_unknown = ops::Reshape(root.WithOpName("two"), x, {-1, -1});
  auto wrong_count = ops::Reshape(root.WithOpName("count"), x, {4});
  auto not_divisible = ops::Reshape(root.WithOpName("div"), x, {4, -1});
  test::Feeds feeds{{x, Iota({2, 3})}};
  std::string m = RunError(root, two_unknown, feeds);
  CHECK_THAT(m, Catch::Contains("Reshape 'two'") && Catch::Contains("only one dimension"));
  m = RunError(root, wrong_count, feeds);
  CHECK_THAT(m, Catch::Contains("Reshape 'count'") && Catch::Contains("[2,3] has 6 values") &&
                    Catch::Contains("[4] has 4"));
  m = RunError(root, not_divisible, feeds);
  CHECK_THAT(m, Catch::Contains("not divisible by 4"));
}

TEST_CASE("ExpandDims inserts a size-1 dimension at positive and negative dims", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Iota({2, 3}));
  auto out = RunScope(root, {ops::ExpandDims(root, x, 0), ops::ExpandDims(root, x, 2),
                             ops::ExpandDims(root, x, -1), ops::ExpandDims(root, x, -3)});
  CHECK(out[0].shape() == TensorShape{1, 2, 3});
  CHECK(out[1].shape() == TensorShape{2, 3, 1});
  CHECK(out[2].shape() == TensorShape{2, 3, 1});
  CHECK(out[3].shape() == TensorShape{1, 2, 3});
  CHECK(Values<float>(out[1]) == Values<float>(Iota({6})));
  Scope bad = Scope::NewRootScope();
  auto e = ops::ExpandDims(bad.WithOpName("e"), ops::Const(bad, Iota({2, 3})), 3);
  CHECK_THAT(RunError(bad, e), Catch::Contains("ExpandDims 'e'") &&
                                   Catch::Contains("dim 3 is out of range [-3, 2]"));
}

TEST_CASE("Squeeze removes listed or all size-1 dims and rejects others", "[array]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Iota({1, 2, 1, 3}));
  auto out = RunScope(root, {ops::Squeeze(root, x), ops::Squeeze(root, x, {2}),
                             ops::Squeeze(root, x, {-4})});
  CHECK(out[0].shape() == TensorShape{2, 3});
  CHECK(out[1].shape() == TensorShape{1, 2, 3});
  CHECK(out[2].shape() == TensorShape{2, 1, 3});
  Scope bad = Scope::NewRootScope();
  auto s = ops::Squeeze(bad.WithOpName("sq"), ops::Const(bad, Iota({1, 2})), {1});
  CHECK_THAT(RunError(bad, s), Catch::Contains("Squeeze 'sq'") &&
                                   Catch::Contains("expected a dimension of 1, got 2"));
}

}  // namespace
}  // namespace fb
