// StridedSlice and StridedSliceGrad against reference values computed with Python's basic
// indexing on nested lists (slice.indices clamps as NumPy does; the script's expressions are
// written next to each case), covering every mask, negative indices and strides, clamping,
// graph-time shapes, the errors for bad specs, and the gradient (central differences and by hand).
#include "engine/autodiff/gradients.h"
#include "tests/engine/ops/array_test_util.h"
#include "tests/gradient_checker.h"

namespace fb {
namespace {

using test::Iota;
using test::RunError;
using test::RunScope;
using test::Values;
using Masks = ops::StridedSliceMasks;
using Xs = std::vector<Output>;

struct Case {
  const char* python;  // the indexing expression the values come from
  std::vector<int64_t> begin, end, strides;
  Masks masks;
  TensorShape shape;
  std::vector<float> values;
};

TEST_CASE("StridedSlice follows NumPy basic indexing", "[array][strided_slice]") {
  // clang-format off
  const std::vector<Case> cases = {
      {"x[1:3, ::2, -1]", {1, 0, -1}, {3, 0, 0}, {1, 2, 1}, {2, 2, 0, 0, 4}, {2, 2},
       {24, 34, 44, 54}},
      {"x[..., 1:4]", {0, 1}, {0, 4}, {1, 1}, {0, 0, 1, 0, 0}, {3, 4, 3},
       {1, 2, 3, 6, 7, 8, 11, 12, 13, 16, 17, 18, 21, 22, 23, 26, 27, 28,
        31, 32, 33, 36, 37, 38, 41, 42, 43, 46, 47, 48, 51, 52, 53, 56, 57, 58}},
      {"x[:, np.newaxis, 2]", {0, 0, 2}, {0, 0, 3}, {1, 1, 1}, {1, 1, 0, 2, 4}, {3, 1, 5},
       {10, 11, 12, 13, 14, 30, 31, 32, 33, 34, 50, 51, 52, 53, 54}},
      {"x[::-1, -2:0:-1]", {0, -2}, {0, 0}, {-1, -1}, {1, 1, 0, 0, 0}, {3, 2, 5},
       {50, 51, 52, 53, 54, 45, 46, 47, 48, 49, 30, 31, 32, 33, 34,
        25, 26, 27, 28, 29, 10, 11, 12, 13, 14, 5, 6, 7, 8, 9}},
      {"x[1]", {1}, {2}, {1}, {0, 0, 0, 0, 1}, {4, 5},
       {20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39}},
      {"x[5:10]", {5}, {10}, {1}, {}, {0, 4, 5}, {}},
      {"x[-1, -1, -1]", {-1, -1, -1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0, 0, 7}, {}, {59}},
      {"x[-100:100:2, 1:-1:2, 3:]", {-100, 1, 3}, {100, -1, 0}, {2, 2, 1}, {0, 4, 0, 0, 0},
       {2, 1, 2}, {8, 9, 48, 49}},
  };
  // clang-format on
  for (const Case& c : cases) {
    INFO(c.python);
    Scope root = Scope::NewRootScope();
    auto x = ops::Const(root, Iota({3, 4, 5}));
    auto out = RunScope(root, {ops::StridedSlice(root, x, c.begin, c.end, c.strides, c.masks)});
    CHECK(out[0].shape() == c.shape);
    CHECK(Values<float>(out[0]) == c.values);
  }
}

TEST_CASE("StridedSlice of vectors, new axes around an ellipsis, other dtypes",
          "[array][strided_slice]") {
  Scope root = Scope::NewRootScope();
  auto v = ops::Const(root, Iota({10}, DataType::kInt32));
  auto m = ops::Const(root, Iota({2, 3}, DataType::kInt64));
  auto b = ops::Const(root, Tensor::FromVector<bool>({true, false, false, true}));
  auto out = RunScope(
      root,
      {ops::StridedSlice(root, v, {8}, {1}, {-3}),                  // v[8:1:-3]
       ops::StridedSlice(root, m, {0, 0, 0}, {0, 0, 0}, {1, 1, 1},  // m[None, ..., None]
                         {0, 0, 2, 5, 0}),
       ops::StridedSlice(root, b, {1}, {0}, {2}, {0, 1, 0, 0, 0}),  // b[1::2]
       ops::StridedSlice(root, v, ops::Const(root, test::I64({2})),
                         ops::Const(root, test::I64({5})), ops::Const(root, test::I64({1})))});
  CHECK(Values<int32_t>(out[0]) == std::vector<int32_t>{8, 5, 2});
  CHECK(out[1].shape() == TensorShape{1, 2, 3, 1});
  CHECK(Values<int64_t>(out[1]) == std::vector<int64_t>{0, 1, 2, 3, 4, 5});
  CHECK(Values<bool>(out[2]) == std::vector<bool>{false, true});
  CHECK(Values<int32_t>(out[3]) == std::vector<int32_t>{2, 3, 4});
}

TEST_CASE("StridedSlice's shape is inferred from a constant spec", "[array][strided_slice]") {
  Tensor begin = test::I32({1, 0, -1}), end = test::I32({3, 0, 0}), strides = test::I32({1, 2, 1});
  AttrMap attrs = {{"T", DataType::kFloat},
                   {"Index", DataType::kInt32},
                   {"begin_mask", 2},
                   {"end_mask", 2},
                   {"shrink_axis_mask", 4}};
  const std::vector<PartialShape> in = {TensorShape{3, -1, 5}, TensorShape{3}, TensorShape{3},
                                        TensorShape{3}};
  CHECK(test::InferredShape("StridedSlice", attrs, in, {nullptr, &begin, &end, &strides}) ==
        "[2,?]");
  CHECK(test::InferredShape("StridedSlice", attrs, in) == "<unknown>");
  Tensor zero = test::I32({1, 0, 1});
  CHECK_THAT(test::InferredShape("StridedSlice", attrs, in, {nullptr, &begin, &end, &zero}),
             Catch::Contains("StridedSlice 'n'") && Catch::Contains("strides[1] must be non-zero"));
}

TEST_CASE("StridedSlice with a bad spec fails naming the node", "[array][strided_slice]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Iota({3, 4}));
  auto b = ops::Placeholder(root.WithOpName("b"), DataType::kInt32);
  auto e = ops::Placeholder(root.WithOpName("e"), DataType::kInt32);
  auto st = ops::Placeholder(root.WithOpName("st"), DataType::kInt32);
  auto plain = ops::StridedSlice(root.WithOpName("ss"), x, b, e, st);
  auto shrink = ops::StridedSlice(root.WithOpName("shrink"), x, b, e, st, {0, 0, 0, 0, 1});
  auto two = ops::StridedSlice(root.WithOpName("ell"), x, b, e, st, {0, 0, 3, 0, 0});
  auto spec = [&](std::vector<int32_t> bv, std::vector<int32_t> ev, std::vector<int32_t> sv) {
    return test::Feeds{{b, test::I32(bv)}, {e, test::I32(ev)}, {st, test::I32(sv)}};
  };
  CHECK_THAT(RunError(root, plain, spec({0}, {1, 2}, {1})),
             Catch::Contains("'ss'") && Catch::Contains("must have the same length"));
  CHECK_THAT(RunError(root, plain, spec({0, 0}, {1, 2}, {1, 0})),
             Catch::Contains("'ss'") && Catch::Contains("strides[1] must be non-zero"));
  CHECK_THAT(RunError(root, plain, spec({0, 0, 0}, {1, 1, 1}, {1, 1, 1})),
             Catch::Contains("'ss'") && Catch::Contains("more dimensions than the input's 2"));
  CHECK_THAT(
      RunError(root, shrink, spec({3}, {4}, {1})),
      Catch::Contains("'shrink'") && Catch::Contains("slice index 3 of dimension 0 out of bounds"));
  CHECK_THAT(RunError(root, shrink, spec({-4}, {0}, {1})),
             Catch::Contains("'shrink'") &&
                 Catch::Contains("slice index -4 of dimension 0 out of bounds"));
  CHECK_THAT(RunError(root, two, spec({0, 0}, {1, 1}, {1, 1})),
             Catch::Contains("'ell'") && Catch::Contains("more than one bit"));
  CHECK_THAT(RunError(root, plain,
                      {{b, Tensor::FromVector<int32_t>({0}, {1, 1})},
                       {e, test::I32({1})},
                       {st, test::I32({1})}}),
             Catch::Contains("'ss'") && Catch::Contains("begin must be 1-D"));
}

TEST_CASE("StridedSliceGrad scatters dy into zeros and checks dy's shape",
          "[array][strided_slice]") {
  Scope root = Scope::NewRootScope();
  // x[::2, 1] of a [3, 2] input: elements (0, 1) and (2, 1).
  auto dy = ops::Const(root, Tensor::FromVector<float>({5, 7}));
  auto g = ops::StridedSliceGrad(root, {3, 2}, {0, 1}, {0, 2}, {2, 1}, dy, {1, 1, 0, 0, 2});
  CHECK(Values<float>(RunScope(root, {g})[0]) == std::vector<float>{0, 5, 0, 0, 0, 7});
  Scope bad = Scope::NewRootScope();
  auto wrong =
      ops::StridedSliceGrad(bad.WithOpName("ssg"), {3, 2}, {0, 1}, {0, 2}, {2, 1},
                            ops::Const(bad, Tensor::FromVector<float>({5, 7, 9})), {1, 1, 0, 0, 2});
  CHECK_THAT(RunError(bad, wrong),
             Catch::Contains("'ssg'") &&
                 Catch::Contains("dy has shape [3], expected the slice's shape [2]"));
}

TEST_CASE("StridedSlice's gradient matches central differences", "[array][grad]") {
  auto slice = [](std::vector<int64_t> b, std::vector<int64_t> e, std::vector<int64_t> s, Masks m) {
    return [=](const Scope& sc, const Xs& x) { return ops::StridedSlice(sc, x[0], b, e, s, m); };
  };
  Tensor x = test::RandomDouble({3, 4, 2});
  CHECK(test::MaxGradientError(slice({1, 0, -1}, {3, 0, 0}, {1, 2, 1}, {2, 2, 0, 0, 4}), {x}) <
        1e-6);
  CHECK(test::MaxGradientError(slice({0, -1}, {0, 0}, {-1, -2}, {1, 1, 0, 0, 0}), {x}) < 1e-6);
  CHECK(test::MaxGradientError(slice({0, 0, 1}, {0, 0, 2}, {1, 1, 1}, {0, 0, 1, 2, 4}), {x}) <
        1e-6);
  // An int64 spec: the gradient reads x's shape as int64.
  auto wide = [](const Scope& sc, const Xs& in) {
    return ops::StridedSlice(sc, in[0], ops::Const(sc, test::I64({1, 0})),
                             ops::Const(sc, test::I64({3, 3})), ops::Const(sc, test::I64({1, 2})));
  };
  CHECK(test::MaxGradientError(wide, {x}) < 1e-6);
  // The gradient of StridedSliceGrad (second order): the same slice of the incoming gradient.
  auto grad_op = [](const Scope& sc, const Xs& in) {
    return ops::StridedSliceGrad(sc, {3, 2}, {0, 1}, {0, 2}, {2, 1}, in[0], {1, 1, 0, 0, 2});
  };
  CHECK(test::MaxGradientError(grad_op, {test::RandomDouble({2})}) < 1e-6);
  Scope root = Scope::NewRootScope();
  auto v = ops::Const(root, Tensor::FromVector<double>({1, 2, 3, 4, 5}));
  auto y = ops::StridedSlice(root, v, {4}, {0}, {-2});  // v[4:0:-2] = [5, 3]
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {v}, {}, &grads).ok());
  CHECK(Values<double>(RunScope(root, {grads[0]})[0]) == std::vector<double>{0, 0, 1, 0, 1});
}

}  // namespace
}  // namespace fb
