// "xs: T" args with T a list(type): one input per listed dtype (mixed dtypes, as TensorFlow's
// Save takes its `data`).
#include <catch2/catch.hpp>

#include "engine/client/state_ops.h"
#include "engine/framework/op_def.h"
#include "engine/graph/node_builder.h"

namespace fb {

REGISTER_OP("_TestMixedList")
    .Input("tag: string")
    .Input("xs: T")
    .Output("ys: T")
    .Attr("T: list(type)")
    .Doc("Test op with a list(type) input and output.");

namespace {

TEST_CASE("list(type) args expand to one tensor per listed dtype", "[checkpoint][op_def]") {
  auto op = OpRegistry::Global()->LookUp("_TestMixedList");
  REQUIRE(op.ok());
  AttrMap attrs = {{"T", std::vector<DataType>{DataType::kFloat, DataType::kInt64}}};
  std::vector<DataType> in, out;
  REQUIRE(InOutTypesForNode(**op, "n", attrs, &in, &out).ok());
  CHECK(in == std::vector<DataType>{DataType::kString, DataType::kFloat, DataType::kInt64});
  CHECK(out == std::vector<DataType>{DataType::kFloat, DataType::kInt64});

  attrs["T"] = std::vector<DataType>{};
  in.clear();
  out.clear();
  REQUIRE(InOutTypesForNode(**op, "n", attrs, &in, &out).ok());
  CHECK(in == std::vector<DataType>{DataType::kString});
}

TEST_CASE("NodeBuilder infers a list(type) attr from the wired tensors", "[checkpoint][op_def]") {
  Scope root = Scope::NewRootScope();
  auto tag = ops::Const(root, Tensor::Scalar<std::string>("t"));
  auto a = ops::Const(root, 1.0f);
  auto b = ops::Const(root, int64_t{2});
  auto n = NodeBuilder("mixed", "_TestMixedList").Input(NodeOut(tag)).Input({a, b, a})
               .Finalize(root.graph());
  INFO(n.status().ToString());
  REQUIRE(n.ok());
  std::vector<DataType> types;
  REQUIRE(GetNodeAttr((*n)->def().attrs, "T", &types).ok());
  CHECK(types == std::vector<DataType>{DataType::kFloat, DataType::kInt64, DataType::kFloat});
  CHECK((*n)->num_inputs() == 4);
  CHECK((*n)->output_type(1) == DataType::kInt64);
}

TEST_CASE("A list(type) attr that disagrees with the inputs is rejected, naming the node",
          "[checkpoint][op_def][errors]") {
  Scope root = Scope::NewRootScope();
  auto tag = ops::Const(root, Tensor::Scalar<std::string>("t"));
  auto a = ops::Const(root, 1.0f);
  auto n = NodeBuilder("bad", "_TestMixedList").Input(NodeOut(tag)).Input({a})
               .Attr("T", std::vector<DataType>{DataType::kInt32})
               .Finalize(root.graph());
  REQUIRE_FALSE(n.ok());
  CHECK_THAT(n.status().message(), Catch::Contains("bad"));
  CHECK_THAT(n.status().message(), Catch::Contains("int32"));
}

TEST_CASE("An arg cannot be both N * T and a list(type)", "[checkpoint][op_def][errors]") {
  auto op = OpDefBuilder("_Bad").Input("xs: N * T").Attr("N: int").Attr("T: list(type)")
                .Finalize();
  REQUIRE_FALSE(op.ok());
  CHECK_THAT(op.status().message(),
             Catch::Contains("op _Bad: arg 'xs' has list(type) attr 'T' and cannot also be "
                             "repeated by 'N'"));
}

}  // namespace
}  // namespace fb
