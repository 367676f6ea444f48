// Gather, GatherV2, OneHot and UnsortedSegmentSum kernels: values computed by hand.
#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::Iota;
using test::RunError;
using test::RunScope;
using test::Values;

TEST_CASE("Gather picks rows, indices of any shape", "[array]") {
  Scope root = Scope::NewRootScope();
  auto params = ops::Const(root, Iota({4, 2}));  // rows {0,1} {2,3} {4,5} {6,7}
  auto idx = ops::Const(root, Tensor::FromVector<int32_t>({3, 0, 3, 1}, {2, 2}));
  auto idx64 = ops::Const(root, Tensor::Scalar<int64_t>(2));
  auto out = RunScope(root, {ops::Gather(root, params, idx), ops::Gather(root, params, idx64)});
  CHECK(out[0].shape() == TensorShape{2, 2, 2});
  CHECK(Values<float>(out[0]) == std::vector<float>{6, 7, 0, 1, 6, 7, 2, 3});
  CHECK(out[1].shape() == TensorShape{2});
  CHECK(Values<float>(out[1]) == std::vector<float>{4, 5});
}

TEST_CASE("GatherV2 gathers along inner and negative axes", "[array]") {
  Scope root = Scope::NewRootScope();
  auto params = ops::Const(root, Iota({2, 3, 2}));
  auto idx = ops::Const(root, test::I32({2, 0}));
  auto out = RunScope(root, {ops::GatherV2(root, params, idx, 1), ops::GatherV2(root, params, idx, -2),
                             ops::GatherV2(root, params, ops::Const(root, test::I64({1})), 2)});
  CHECK(out[0].shape() == TensorShape{2, 2, 2});
  // params[i, j, k] = 6i + 2j + k; out[i, a, k] = params[i, idx[a], k]
  CHECK(Values<float>(out[0]) == std::vector<float>{4, 5, 0, 1, 10, 11, 6, 7});
  CHECK(Values<float>(out[1]) == Values<float>(out[0]));
  CHECK(out[2].shape() == TensorShape{2, 3, 1});
  CHECK(Values<float>(out[2]) == std::vector<float>{1, 3, 5, 7, 9, 11});
}

TEST_CASE("Gather with an out-of-range index fails naming the node and the index", "[array]") {
  Scope root = Scope::NewRootScope();
  auto g = ops::Gather(root.WithOpName("emb"), ops::Const(root, Iota({3, 2})),
                       ops::Const(root, Tensor::FromVector<int32_t>({0, 1, 7, 2}, {2, 2})));
  CHECK_THAT(RunError(root, g), Catch::Contains("Gather 'emb'") &&
                                    Catch::Contains("indices[1,0] = 7 is not in [0, 3)"));
  Scope neg = Scope::NewRootScope();
  auto h = ops::GatherV2(neg.WithOpName("h"), ops::Const(neg, Iota({3, 2})),
                         ops::Const(neg, test::I64({-1})), 1);
  CHECK_THAT(RunError(neg, h), Catch::Contains("indices[0] = -1 is not in [0, 2)"));
}

TEST_CASE("OneHot encodes along the last axis or axis 0, bad indices give off rows", "[array]") {
  Scope root = Scope::NewRootScope();
  auto idx = ops::Const(root, test::I32({0, 2, -1, 5}));
  auto last = ops::OneHot(root, idx, 3);
  auto first = ops::OneHot(root, idx, ops::Const(root, Tensor::Scalar<int32_t>(3)),
                           ops::Const(root, 5.0), ops::Const(root, -1.0), 0);
  auto out = RunScope(root, {last, first});
  CHECK(out[0].shape() == TensorShape{4, 3});
  CHECK(Values<float>(out[0]) == std::vector<float>{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0});
  CHECK(out[1].shape() == TensorShape{3, 4});
  CHECK(Values<double>(out[1]) == std::vector<double>{5, -1, -1, -1, -1, -1, -1, -1, -1, 5, -1, -1});
  Scope bad = Scope::NewRootScope();
  auto o = ops::OneHot(bad.WithOpName("oh"), ops::Const(bad, test::I32({0})), -2);
  CHECK_THAT(RunError(bad, o), Catch::Contains("OneHot 'oh'") &&
                                   Catch::Contains("depth must be non-negative, got -2"));
}

TEST_CASE("UnsortedSegmentSum adds rows by segment id and drops negative ids", "[array]") {
  Scope root = Scope::NewRootScope();
  auto data = ops::Const(root, Iota({4, 2}));  // rows {0,1} {2,3} {4,5} {6,7}
  auto ids = ops::Const(root, test::I32({2, 0, 2, -1}));
  auto out = RunScope(root, {ops::UnsortedSegmentSum(root, data, ids, 3)});
  CHECK(out[0].shape() == TensorShape{3, 2});
  CHECK(Values<float>(out[0]) == std::vector<float>{2, 3, 0, 0, 4, 6});
  Scope bad = Scope::NewRootScope();
  auto s = ops::UnsortedSegmentSum(bad.WithOpName("seg"), ops::Const(bad, Iota({2})),
                                   ops::Const(bad, test::I64({0, 3})), 2);
  CHECK_THAT(RunError(bad, s), Catch::Contains("UnsortedSegmentSum 'seg'") &&
                                   Catch::Contains("segment_ids[1] = 3 is not in [0, 2)"));
}

}  // namespace
}  // namespace fb
