// Gradients of Sum, Mean, Max and Min: float64 central-difference checks over several axis sets,
// with and without keep_dims, and the even split of Max's gradient between ties.
#include "engine/client/math_ops.h"
#include "tests/gradient_checker.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using test::MaxGradientError;
using test::RandomDouble;
using Xs = std::vector<Output>;
using ReduceFn = Output (*)(const Scope&, Output, const std::vector<int>&, bool);

constexpr double kTolerance = 1e-6;

double ReductionError(ReduceFn op, const TensorShape& shape, const std::vector<int>& axes,
                      bool keep_dims) {
  return MaxGradientError(
      [&](const Scope& s, const Xs& x) { return op(s, x[0], axes, keep_dims); },
      {RandomDouble(shape)});
}

TEST_CASE("Sum, Mean, Max, Min gradients over any axes", "[math][grad]") {
  for (ReduceFn op : {ReduceFn(ops::Sum), ReduceFn(ops::Mean), ReduceFn(ops::Max), ReduceFn(ops::Min)}) {
    for (bool keep_dims : {false, true}) {
      INFO("keep_dims " << keep_dims);
      CHECK(ReductionError(op, {2, 3}, {0}, keep_dims) < kTolerance);
      CHECK(ReductionError(op, {2, 3}, {-1}, keep_dims) < kTolerance);
      CHECK(ReductionError(op, {2, 3, 2}, {0, 2}, keep_dims) < kTolerance);
      CHECK(ReductionError(op, {3, 2}, {0, 1}, keep_dims) < kTolerance);
    }
  }
}

TEST_CASE("Max's gradient is shared evenly between tied maxima", "[math][grad]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<double>({1, 3, 3, 5, 2, 0}, {2, 3}));
  auto y = ops::Max(root, x, {1});
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x}, {}, &grads).ok());
  auto s = test::MakeSession(root.ToGraphDef());
  CHECK(test::Values<double>(test::RunOk(s.get(), {}, {grads[0].name()})[0]) ==
        std::vector<double>{0, 0.5, 0.5, 1, 0, 0});
}

TEST_CASE("Mean's gradient is 1/count, with axes fed at run time", "[math][grad]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<double>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4}));
  auto axes = ops::Placeholder(root.WithOpName("axes"), DataType::kInt32);
  auto y = ops::Mean(root, x, axes);
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x}, {}, &grads).ok());
  auto s = test::MakeSession(root.ToGraphDef());
  auto out = test::RunOk(s.get(), {{"axes:0", Tensor::FromVector<int32_t>({-1})}}, {grads[0].name()});
  CHECK(test::Values<double>(out[0]) == std::vector<double>(8, 0.25));
  out = test::RunOk(s.get(), {{"axes:0", Tensor::FromVector<int32_t>({0, 1})}}, {grads[0].name()});
  CHECK(test::Values<double>(out[0]) == std::vector<double>(8, 0.125));
}

}  // namespace
}  // namespace fb
