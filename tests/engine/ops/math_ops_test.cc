// Shape functions of the math ops (engine/ops/math_*.cc), evaluated directly on partial shapes
// and constant inputs, with hand-derived results and the errors they report.
#include <catch2/catch.hpp>

#include "engine/framework/shape_inference.h"

namespace fb {
namespace {

using Shapes = std::vector<PartialShape>;

// Output shapes of op node "n" for the given input shapes, attrs and constant inputs.
StatusOr<Shapes> Infer(const std::string& op, Shapes inputs, AttrMap attrs = {},
                       std::vector<const Tensor*> tensors = {}) {
  ASSIGN_OR_RETURN(const OpDef* def, OpRegistry::Global()->LookUp(op));
  if (!attrs.count("T") && def->FindAttr("T")) attrs["T"] = DataType::kFloat;
  RETURN_IF_ERROR(AddDefaultsAndValidateAttrs(*def, "n", &attrs));
  InferenceContext c("n", *def, attrs, std::move(inputs), std::move(tensors));
  RETURN_IF_ERROR(def->shape_fn(&c));
  return c.outputs();
}

PartialShape Out(const StatusOr<Shapes>& s) {
  INFO(s.status().ToString());
  REQUIRE(s.ok());
  return (*s)[0];
}

std::string Error(const StatusOr<Shapes>& s) {
  REQUIRE_FALSE(s.ok());
  return s.status().message();
}

const PartialShape kUnknown = std::nullopt;

TEST_CASE("Binary and comparison ops broadcast partial shapes", "[math][shape_fn]") {
  CHECK(Out(Infer("Add", {TensorShape{2, 3}, TensorShape{3}})) == TensorShape{2, 3});
  CHECK(Out(Infer("Mul", {TensorShape{-1, 3}, TensorShape{1}})) == TensorShape{-1, 3});
  CHECK(Out(Infer("Greater", {TensorShape{4, 1}, TensorShape{1, 5}})) == TensorShape{4, 5});
  CHECK(Out(Infer("Sub", {kUnknown, TensorShape{3}})) == kUnknown);
  CHECK_THAT(Error(Infer("Add", {TensorShape{2, 3}, TensorShape{4}})),
             Catch::Contains("Add 'n': incompatible shapes for broadcasting: [2,3] and [4]"));
  CHECK(Out(Infer("Exp", {TensorShape{7}})) == TensorShape{7});
  CHECK(Out(Infer("Cast", {TensorShape{2}}, {{"SrcT", DataType::kInt32}, {"DstT", DataType::kHalf}})) ==
        TensorShape{2});
}

TEST_CASE("AddN merges its inputs' shapes", "[math][shape_fn]") {
  AttrMap n3 = {{"N", 3}};
  CHECK(Out(Infer("AddN", {TensorShape{-1, 3}, kUnknown, TensorShape{2, -1}}, n3)) == TensorShape{2, 3});
  CHECK_THAT(Error(Infer("AddN", {TensorShape{2}, TensorShape{3}}, {{"N", 2}})),
             Catch::Contains("AddN 'n': input 1: dimensions 2 and 3 differ"));
}

TEST_CASE("Reductions use constant axes when known", "[math][shape_fn]") {
  Tensor axes = Tensor::FromVector<int32_t>({-1});
  CHECK(Out(Infer("Sum", {TensorShape{2, 3}, TensorShape{1}}, {}, {nullptr, &axes})) == TensorShape{2});
  CHECK(Out(Infer("Max", {TensorShape{2, 3}, TensorShape{1}}, {{"keep_dims", true}}, {nullptr, &axes})) ==
        TensorShape{2, 1});
  CHECK(Out(Infer("Mean", {TensorShape{2, 3}, TensorShape{1}}, {{"keep_dims", true}})) ==
        TensorShape{-1, -1});
  CHECK(Out(Infer("Min", {TensorShape{2, 3}, TensorShape{1}})) == kUnknown);
  Tensor bad = Tensor::FromVector<int32_t>({2});
  CHECK_THAT(Error(Infer("Sum", {TensorShape{2, 3}, TensorShape{1}}, {}, {nullptr, &bad})),
             Catch::Contains("Sum 'n': reduction index 2 is out of range for input of rank 2"));
  Tensor dim = Tensor::Scalar<int32_t>(0);
  CHECK(Out(Infer("ArgMax", {TensorShape{4, 5}, TensorShape{}}, {}, {nullptr, &dim})) == TensorShape{5});
}

TEST_CASE("MatMul and BatchMatMul shapes with transposes", "[math][shape_fn]") {
  CHECK(Out(Infer("MatMul", {TensorShape{2, 3}, TensorShape{3, 4}})) == TensorShape{2, 4});
  CHECK(Out(Infer("MatMul", {TensorShape{3, 2}, TensorShape{4, -1}},
                  {{"transpose_a", true}, {"transpose_b", true}})) == TensorShape{2, 4});
  CHECK_THAT(Error(Infer("MatMul", {TensorShape{2, 3}, TensorShape{4, 5}})),
             Catch::Contains("MatMul 'n': matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]"));
  CHECK_THAT(Error(Infer("MatMul", {TensorShape{2, 3, 4}, TensorShape{4, 5}})),
             Catch::Contains("MatMul 'n': input 0 must be 2-D, got shape [2,3,4]"));
  CHECK(Out(Infer("BatchMatMul", {TensorShape{5, 2, 3}, TensorShape{-1, 4, 3}}, {{"adj_y", true}})) ==
        TensorShape{5, 2, 4});
  CHECK_THAT(Error(Infer("BatchMatMul", {TensorShape{5, 2, 3}, TensorShape{6, 3, 4}})),
             Catch::Contains("batch dimension 0: dimensions 5 and 6 differ"));
}

TEST_CASE("MatrixInverse, MatrixDeterminant and Fill shapes", "[math][shape_fn]") {
  CHECK(Out(Infer("MatrixInverse", {TensorShape{3, 2, 2}})) == TensorShape{3, 2, 2});
  CHECK(Out(Infer("MatrixDeterminant", {TensorShape{3, 2, 2}})) == TensorShape{3});
  CHECK_THAT(Error(Infer("MatrixDeterminant", {TensorShape{2, 3}})),
             Catch::Contains("input must be square matrices [..., M, M], got shape [2,3]"));
  Tensor dims = Tensor::FromVector<int32_t>({2, 5});
  CHECK(Out(Infer("Fill", {TensorShape{2}, TensorShape{}}, {}, {&dims, nullptr})) == TensorShape{2, 5});
  CHECK(Out(Infer("Fill", {TensorShape{3}, TensorShape{}})) == TensorShape{-1, -1, -1});
}

}  // namespace
}  // namespace fb
