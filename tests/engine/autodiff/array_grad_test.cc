// Gradients of the array ops (whitepaper 4.1): symbolic gradients against float64 central
// differences (tests/gradient_checker.h), and the ops that pass or block gradients.
#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"
#include "tests/gradient_checker.h"

namespace fb {
namespace {

using test::MaxGradientError;
using test::RandomDouble;

constexpr double kTol = 1e-7;  // every gradient here is linear in dy: errors are round-off

TEST_CASE("Gradients of Identity, Reshape, ExpandDims and Squeeze", "[array][grad]") {
  Tensor x = RandomDouble({2, 3});
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::Identity(s, xs[0]);
        }, {x}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::Reshape(s, xs[0], {3, -1});
        }, {x}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::ExpandDims(s, xs[0], 1);
        }, {x}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::Squeeze(s, ops::ExpandDims(s, xs[0], -1));
        }, {x}) < kTol);
}

TEST_CASE("Gradient of Transpose", "[array][grad]") {
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::Transpose(s, xs[0], {1, 2, 0});
        }, {RandomDouble({2, 3, 4})}) < kTol);
}

TEST_CASE("Gradients of ConcatV2 (int32 and int64 axis) and Concat", "[array][grad]") {
  std::vector<Tensor> xs{RandomDouble({2, 3}, -1, 1, 1), RandomDouble({2, 1}, -1, 1, 2),
                         RandomDouble({2, 2}, -1, 1, 3)};
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& x) {
          return ops::Concat(s, {x[0], x[1], x[2]}, -1);
        }, xs) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& x) {
          return ops::Concat(s, {x[0], x[1], x[2]}, ops::Const(s, Tensor::Scalar<int64_t>(1)));
        }, xs) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& x) {
          Node* n = ops::AddOpWithList(s, "Concat", {{ops::Const(s, Tensor::Scalar<int32_t>(1))}, {x[0], x[1]}});
          return n ? Output(n, 0) : Output();
        }, {xs[0], xs[1]}) < kTol);
}

TEST_CASE("Gradients of Split, Pack and Unpack", "[array][grad]") {
  Tensor x = RandomDouble({2, 6});
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          auto parts = ops::Split(s, xs[0], 1, 3);
          return ops::Concat(s, {parts[2], parts[0], parts[1]}, 0);
        }, {x}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::Pack(s, {xs[0], xs[1]}, 1);
        }, {x, RandomDouble({2, 6}, -1, 1, 7)}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          auto parts = ops::Unpack(s, xs[0], 6, 1);
          return ops::Pack(s, {parts[5], parts[1], parts[0], parts[2], parts[3], parts[4]});
        }, {x}) < kTol);
}

TEST_CASE("Gradients of Slice and Pad", "[array][grad]") {
  Tensor x = RandomDouble({3, 4});
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::Pad(s, xs[0], {{1, 0}, {2, 3}});
        }, {x}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::Slice(s, xs[0], {1, 1}, {2, -1});
        }, {x}) < kTol);
}

TEST_CASE("Gradients of Gather and GatherV2 sum repeated indices", "[array][grad]") {
  Tensor params = RandomDouble({4, 3});
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          auto idx = ops::Const(s, Tensor::FromVector<int32_t>({3, 0, 3, 3}, {2, 2}));
          return ops::Gather(s, xs[0], idx);
        }, {params}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::GatherV2(s, xs[0], ops::Const(s, test::I64({2, 2, 0})), 1);
        }, {RandomDouble({2, 3, 2})}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::GatherV2(s, xs[0], ops::Const(s, test::I32({1})), 2);
        }, {RandomDouble({2, 2, 3})}) < kTol);
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::GatherV2(s, xs[0], ops::Const(s, test::I32({1, 1})), 0);
        }, {RandomDouble({3, 2})}) < kTol);
}

TEST_CASE("Gradient of UnsortedSegmentSum gathers dy rows", "[array][grad]") {
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::UnsortedSegmentSum(s, xs[0], ops::Const(s, test::I32({1, 0, 1})), 3);
        }, {RandomDouble({3, 2})}) < kTol);
}

TEST_CASE("Gradient of CheckNumerics passes through and checks the gradient", "[array][grad]") {
  CHECK(MaxGradientError([](const Scope& s, const std::vector<Output>& xs) {
          return ops::CheckNumerics(s, xs[0], "x");
        }, {RandomDouble({3})}) < kTol);
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kDouble);
  auto y = ops::CheckNumerics(root.WithOpName("y"), x, "activations");
  auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
  std::vector<NodeOut> grads;
  REQUIRE(AddSymbolicGradients(root.graph(), {y}, {x}, {w}, &grads).ok());
  auto s = test::MakeSession(root.ToGraphDef());
  std::vector<Tensor> out;
  Tensor nan = Tensor::FromVector<double>({std::nan("")});
  Status st = s->Run({{"x:0", Tensor::FromVector<double>({1})}, {"w:0", nan}}, {grads[0].name()}, {}, &out);
  CHECK_THAT(st.message(), Catch::Contains("detected in gradient. activations : Tensor had NaN"));
}

TEST_CASE("StopGradient blocks the gradient of its path only", "[array][grad]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kDouble);
  auto y = ops::Concat(root, {ops::StopGradient(root, x), ops::Reshape(root, x, {2})}, 0);
  auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
  std::vector<NodeOut> grads;
  Status st = AddSymbolicGradients(root.graph(), {y}, {x}, {w}, &grads);
  INFO(st.ToString());
  REQUIRE(st.ok());
  auto s = test::MakeSession(root.ToGraphDef());
  auto out = test::RunOk(s.get(), {{"x:0", Tensor::FromVector<double>({1, 2})},
                                   {"w:0", Tensor::FromVector<double>({10, 20, 30, 40})}},
                         {grads[0].name()});
  CHECK(test::Values<double>(out[0]) == std::vector<double>{30, 40});
}

TEST_CASE("Gradient of GatherV2 with a computed axis is reported, naming the node", "[array][grad]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kDouble);
  auto axis = ops::Placeholder(root.WithOpName("axis"), DataType::kInt32);
  auto y = ops::GatherV2(root.WithOpName("g"), x, ops::Const(root, test::I32({0})), axis);
  std::vector<NodeOut> grads;
  Status st = AddSymbolicGradients(root.graph(), {y}, {x}, {y}, &grads);
  CHECK(st.code() == Code::kUnimplemented);
  CHECK_THAT(st.message(), Catch::Contains("gradient of GatherV2 'g'") &&
                               Catch::Contains("non-negative constant axis"));
}

}  // namespace
}  // namespace fb
