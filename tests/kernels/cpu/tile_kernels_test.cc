// Tile against hand-computed values (NumPy's np.tile gives the same) for float, int32, bool and
// string tensors of rank 0 to 3, zero multiples, graph-time shapes, the errors for bad
// multiples, and Tile's gradient (the sum over tiles) against central differences and by hand.
#include "engine/autodiff/gradients.h"
#include "tests/engine/ops/array_test_util.h"
#include "tests/gradient_checker.h"

namespace fb {
namespace {

using test::Iota;
using test::RunError;
using test::RunScope;
using test::Values;
using Xs = std::vector<Output>;

TEST_CASE("Tile repeats along every dimension", "[array][tile]") {
  Scope root = Scope::NewRootScope();
  auto v = ops::Const(root, Iota({3}));
  auto m = ops::Const(root, Iota({2, 2}));  // [[0, 1], [2, 3]]
  auto c = ops::Const(root, Iota({2, 1, 2}, DataType::kInt32));
  auto out = RunScope(
      root, {ops::Tile(root, v, {2}), ops::Tile(root, m, {2, 3}), ops::Tile(root, m, {1, 1}),
             ops::Tile(root, m, {0, 2}), ops::Tile(root, c, {1, 2, 2}),
             ops::Tile(root, ops::Const(root, Tensor::Scalar<float>(7)),
                       ops::IntInput(std::vector<int64_t>{}))});
  CHECK(Values<float>(out[0]) == std::vector<float>{0, 1, 2, 0, 1, 2});
  CHECK(out[1].shape() == TensorShape{4, 6});
  CHECK(Values<float>(out[1]) ==
        std::vector<float>{0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3});
  CHECK(Values<float>(out[2]) == std::vector<float>{0, 1, 2, 3});
  CHECK(out[3].shape() == TensorShape{0, 4});
  CHECK(out[4].shape() == TensorShape{2, 2, 4});
  CHECK(Values<int32_t>(out[4]) ==
        std::vector<int32_t>{0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3});
  CHECK(out[5].shape() == TensorShape{});
  CHECK(Values<float>(out[5]) == std::vector<float>{7});
}

TEST_CASE("Tile works for bool and string tensors with int64 multiples", "[array][tile]") {
  Scope root = Scope::NewRootScope();
  auto b = ops::Const(root, Tensor::FromVector<bool>({true, false}, {2, 1}));
  auto s = ops::Const(root, Tensor::FromVector<std::string>({"a", "bc"}, {2}));
  auto m = ops::Const(root, test::I64({1, 2}));
  auto out = RunScope(root, {ops::Tile(root, b, m), ops::Tile(root, s, {2})});
  CHECK(Values<bool>(out[0]) == std::vector<bool>{true, true, false, false});
  CHECK(Values<std::string>(out[1]) == std::vector<std::string>{"a", "bc", "a", "bc"});
}

TEST_CASE("Tile's shape is inferred from constant multiples", "[array][tile]") {
  Tensor m = test::I32({2, 3});
  CHECK(test::InferredShape("Tile", {{"T", DataType::kFloat}}, {TensorShape{-1, 4}, TensorShape{2}},
                            {nullptr, &m}) == "[?,12]");
  CHECK(test::InferredShape("Tile", {{"T", DataType::kFloat}}, {std::nullopt, TensorShape{3}}) ==
        "[?,?,?]");
  CHECK_THAT(test::InferredShape("Tile", {{"T", DataType::kFloat}},
                                 {TensorShape{2}, TensorShape{2}}, {nullptr, &m}),
             Catch::Contains("Tile 'n'") && Catch::Contains("expected one per dimension"));
}

TEST_CASE("Tile with bad multiples fails naming the node", "[array][tile]") {
  Scope root = Scope::NewRootScope();
  auto mult = ops::Placeholder(root.WithOpName("mult"), DataType::kInt64);
  auto t = ops::Tile(root.WithOpName("tile"), ops::Const(root, Iota({2, 3})), mult);
  CHECK_THAT(
      RunError(root, t, {{mult, test::I64({2})}}),
      Catch::Contains("'tile'") && Catch::Contains("has 1 entries for input of shape [2,3]"));
  CHECK_THAT(RunError(root, t, {{mult, test::I64({1, -1})}}),
             Catch::Contains("'tile'") && Catch::Contains("must be >= 0, got -1"));
  CHECK_THAT(RunError(root, t, {{mult, test::I64({1LL << 62, 4})}}),
             Catch::Contains("'tile'") && Catch::Contains("overflows"));
  CHECK_THAT(RunError(root, t, {{mult, Tensor::FromVector<int64_t>({1, 1}, {1, 2})}}),
             Catch::Contains("'tile'") && Catch::Contains("multiples must be 1-D"));
}

TEST_CASE("Tile's gradient sums over the tiles", "[array][grad]") {
  auto tile = [](std::vector<int64_t> m) {
    return [m](const Scope& s, const Xs& x) { return ops::Tile(s, x[0], m); };
  };
  CHECK(test::MaxGradientError(tile({2, 3}), {test::RandomDouble({2, 2})}) < 1e-6);
  CHECK(test::MaxGradientError(tile({1, 2, 1}), {test::RandomDouble({2, 1, 3})}) < 1e-6);
  CHECK(test::MaxGradientError(tile({3}), {test::RandomDouble({2})}) < 1e-6);
  auto wide = [](const Scope& s, const Xs& x) {
    return ops::Tile(s, x[0], ops::Const(s, test::I64({2, 1})));
  };
  CHECK(test::MaxGradientError(wide, {test::RandomDouble({1, 3})}) < 1e-6);
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<double>({1, 2}, {2}));
  auto y = ops::Tile(root, x, {3});
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x}, {}, &grads).ok());
  CHECK(Values<double>(RunScope(root, {grads[0]})[0]) == std::vector<double>{3, 3});
}

}  // namespace
}  // namespace fb
