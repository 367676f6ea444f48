// Shape functions of the array and random ops: graph-time shapes from input shapes and constant
// inputs (hand-computed), and graph-time errors naming the node.
#include <catch2/catch.hpp>

#include "tests/engine/ops/array_test_util.h"

namespace fb {
namespace {

using test::I32;
using test::I64;
using test::InferredShape;

const DataType kF = DataType::kFloat;
const PartialShape kUnknown = std::nullopt;

TEST_CASE("Shape, Rank and Size shape functions", "[array]") {
  CHECK(InferredShape("Shape", {{"T", kF}}, {TensorShape{2, -1, 3}}) == "[3]");
  CHECK(InferredShape("Shape", {{"T", kF}}, {kUnknown}) == "[?]");
  CHECK(InferredShape("Rank", {{"T", kF}}, {kUnknown}) == "[]");
  CHECK(InferredShape("Size", {{"T", kF}}, {TensorShape{4}}) == "[]");
}

TEST_CASE("Reshape's shape function uses a constant shape and infers -1", "[array]") {
  AttrMap a{{"T", kF}};
  Tensor shape = I32({3, -1});
  CHECK(InferredShape("Reshape", a, {TensorShape{2, 6}, TensorShape{2}}, {nullptr, &shape}) == "[3,4]");
  CHECK(InferredShape("Reshape", a, {TensorShape{-1, 6}, TensorShape{2}}, {nullptr, &shape}) == "[3,?]");
  CHECK(InferredShape("Reshape", a, {kUnknown, TensorShape{2}}) == "[?,?]");
  CHECK(InferredShape("Reshape", a, {kUnknown, kUnknown}) == "<unknown>");
  Tensor bad = I32({5});
  CHECK_THAT(InferredShape("Reshape", a, {TensorShape{2, 6}, TensorShape{1}}, {nullptr, &bad}),
             Catch::StartsWith("Reshape 'n': input of shape [2,6] has 12 values"));
  CHECK_THAT(InferredShape("Reshape", a, {TensorShape{2}, TensorShape{2, 2}}),
             Catch::Contains("input 1 must be 1-D"));
}

TEST_CASE("ExpandDims and Squeeze shape functions", "[array]") {
  Tensor dim = I64({-1});
  AttrMap a{{"T", kF}, {"Tdim", DataType::kInt64}};
  CHECK(InferredShape("ExpandDims", a, {TensorShape{2, 3}, TensorShape{}}, {nullptr, &dim}) == "[2,3,1]");
  CHECK(InferredShape("ExpandDims", a, {TensorShape{2, 3}, TensorShape{}}) == "[?,?,?]");
  Tensor far = I64({4});
  CHECK_THAT(InferredShape("ExpandDims", a, {TensorShape{2}, TensorShape{}}, {nullptr, &far}),
             Catch::Contains("dim 4 is out of range [-2, 1]"));
  CHECK(InferredShape("Squeeze", {{"T", kF}}, {TensorShape{1, 2, 1}}) == "[2]");
  CHECK(InferredShape("Squeeze", {{"T", kF}}, {TensorShape{1, -1}}) == "<unknown>");
  CHECK(InferredShape("Squeeze", {{"T", kF}, {"squeeze_dims", std::vector<int64_t>{0}}},
                      {TensorShape{-1, 2}}) == "[2]");
  CHECK_THAT(InferredShape("Squeeze", {{"T", kF}, {"squeeze_dims", std::vector<int64_t>{1}}},
                           {TensorShape{1, 2}}),
             Catch::Contains("expected a dimension of 1, got 2"));
}

TEST_CASE("Transpose and InvertPermutation shape functions", "[array]") {
  Tensor perm = I32({2, 0, 1});
  AttrMap a{{"T", kF}};
  CHECK(InferredShape("Transpose", a, {TensorShape{2, 3, 4}, TensorShape{3}}, {nullptr, &perm}) == "[4,2,3]");
  CHECK(InferredShape("Transpose", a, {kUnknown, TensorShape{3}}) == "[?,?,?]");
  CHECK_THAT(InferredShape("Transpose", a, {TensorShape{2, 3}, TensorShape{3}}, {nullptr, &perm}),
             Catch::Contains("has 3 entries for input of rank 2"));
  CHECK(InferredShape("InvertPermutation", {}, {TensorShape{5}}) == "[5]");
}

TEST_CASE("Concat, Split, Pack and Unpack shape functions", "[array]") {
  Tensor axis = I32({-1});
  AttrMap c{{"T", kF}, {"N", 2}};
  CHECK(InferredShape("ConcatV2", c, {TensorShape{2, 3}, TensorShape{-1, 4}, TensorShape{}},
                      {nullptr, nullptr, &axis}) == "[2,7]");
  CHECK(InferredShape("ConcatV2", c, {TensorShape{2, 3}, kUnknown, TensorShape{}}) == "[?,?]");
  CHECK_THAT(InferredShape("ConcatV2", c, {TensorShape{2, 3}, TensorShape{3, 3}, TensorShape{}},
                           {nullptr, nullptr, &axis}),
             Catch::StartsWith("ConcatV2 'n': input 1 has shape [3,3]"));
  CHECK(InferredShape("Concat", c, {TensorShape{}, TensorShape{2, 3}, TensorShape{2, 1}}, {&axis}) == "[2,4]");
  Tensor one = I32({1});
  auto split = test::InferShapes("Split", {{"T", kF}, {"num_split", 3}}, {TensorShape{}, TensorShape{2, 6}}, {&one});
  REQUIRE(split.ok());
  REQUIRE(split->size() == 3);
  CHECK(PartialShapeString((*split)[2]) == "[2,2]");
  CHECK_THAT(InferredShape("Split", {{"T", kF}, {"num_split", 4}}, {TensorShape{}, TensorShape{2, 6}}, {&one}),
             Catch::Contains("not divisible by num_split 4"));
  CHECK(InferredShape("Pack", {{"T", kF}, {"N", 3}, {"axis", 1}},
                      {TensorShape{2, -1}, TensorShape{-1, 5}, kUnknown}) == "[2,3,5]");
  auto unpack = test::InferShapes("Unpack", {{"T", kF}, {"num", 2}, {"axis", -1}}, {TensorShape{4, 2}});
  REQUIRE(unpack.ok());
  CHECK(PartialShapeString((*unpack)[1]) == "[4]");
}

TEST_CASE("Slice and Pad shape functions", "[array]") {
  Tensor begin = I64({1, 0}), size = I64({-1, 2}), paddings = I32({1, 2, 0, 0});
  AttrMap s{{"T", kF}, {"Index", DataType::kInt64}};
  CHECK(InferredShape("Slice", s, {TensorShape{4, 5}, TensorShape{2}, TensorShape{2}},
                      {nullptr, &begin, &size}) == "[3,2]");
  CHECK(InferredShape("Slice", s, {kUnknown, TensorShape{2}, TensorShape{2}}, {nullptr, nullptr, &size}) == "[?,2]");
  Tensor big = I64({5, 1});
  CHECK_THAT(InferredShape("Slice", s, {TensorShape{4, 5}, TensorShape{2}, TensorShape{2}},
                           {nullptr, &big, &size}),
             Catch::Contains("exceeds dimension 0"));
  CHECK(InferredShape("Pad", {{"T", kF}}, {TensorShape{2, -1}, TensorShape{2, 2}}, {nullptr, &paddings}) == "[5,?]");
}

TEST_CASE("Gather, OneHot and UnsortedSegmentSum shape functions", "[array]") {
  AttrMap g{{"Tparams", kF}, {"Tindices", DataType::kInt32}};
  CHECK(InferredShape("Gather", g, {TensorShape{10, 3}, TensorShape{2, 4}}) == "[2,4,3]");
  Tensor axis = I32({1});
  AttrMap g2{{"Tparams", kF}, {"Tindices", DataType::kInt32}, {"Taxis", DataType::kInt32}};
  CHECK(InferredShape("GatherV2", g2, {TensorShape{5, 6, 7}, TensorShape{2}, TensorShape{}},
                      {nullptr, nullptr, &axis}) == "[5,2,7]");
  CHECK(InferredShape("GatherV2", g2, {TensorShape{5, 6, 7}, TensorShape{2}, TensorShape{}}) == "<unknown>");
  CHECK_THAT(InferredShape("Gather", g, {TensorShape{}, TensorShape{2}}), Catch::Contains("at least 1-D"));
  Tensor depth = I32({4});
  AttrMap o{{"T", kF}, {"TI", DataType::kInt32}, {"axis", 0}};
  CHECK(InferredShape("OneHot", o, {TensorShape{3}, TensorShape{}, TensorShape{}, TensorShape{}},
                      {nullptr, &depth}) == "[4,3]");
  o["axis"] = AttrValue(-1);
  CHECK(InferredShape("OneHot", o, {TensorShape{3}, TensorShape{}, TensorShape{}, TensorShape{}}) == "[3,?]");
  Tensor num = I32({7});
  AttrMap u{{"T", kF}, {"Tindices", DataType::kInt32}};
  CHECK(InferredShape("UnsortedSegmentSum", u, {TensorShape{4, 3}, TensorShape{4}, TensorShape{}},
                      {nullptr, nullptr, &num}) == "[7,3]");
  CHECK_THAT(InferredShape("UnsortedSegmentSum", u, {TensorShape{4, 3}, TensorShape{5}, TensorShape{}}),
             Catch::Contains("must start with the shape of segment_ids [5]"));
}

TEST_CASE("Random op shape functions read a constant shape", "[array][random]") {
  Tensor shape = I64({3, 4});
  AttrMap r{{"dtype", kF}, {"T", DataType::kInt64}};
  CHECK(InferredShape("RandomUniform", r, {TensorShape{2}}, {&shape}) == "[3,4]");
  CHECK(InferredShape("TruncatedNormal", r, {TensorShape{2}}) == "[?,?]");
  Tensor bad = I64({-3});
  CHECK_THAT(InferredShape("RandomStandardNormal", r, {TensorShape{1}}, {&bad}),
             Catch::Contains("negative dimension -3"));
}

TEST_CASE("Debug op shape functions keep the input shape", "[array]") {
  CHECK(InferredShape("CheckNumerics", {{"T", kF}, {"message", "m"}}, {TensorShape{2, -1}}) == "[2,?]");
  CHECK(InferredShape("StopGradient", {{"T", kF}}, {TensorShape{3}}) == "[3]");
}

}  // namespace
}  // namespace fb
