#include "engine/passes/constant_folding.h"

#include <catch2/catch.hpp>

#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/random_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

TEST_CASE("Constant folding evaluates constant chains once", "[passes][constant_folding]") {
  Scope root = Scope::NewRootScope();
  auto two = ops::Const(root.WithOpName("two"), 2.f);
  auto three = ops::Const(root.WithOpName("three"), 3.f);
  auto sum = ops::Add(root.WithOpName("sum"), two, three);
  auto prod = ops::Mul(root.WithOpName("prod"), sum, ops::Const(root.WithOpName("four"), 4.f));
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
  ops::Add(root.WithOpName("y"), x, prod);
  auto r = ops::RandomUniform(root.WithOpName("r"), {2});
  ops::Neg(root.WithOpName("rn"), r);
  REQUIRE(root.ok());
  PassReport rep = FoldConstants(root.graph());
  CHECK(rep.num_changes == 2);
  CHECK(rep.changes[0] == "folded 'sum' (Add)");
  CHECK(rep.changes[1] == "folded 'prod' (Mul)");
  const Graph& g = *root.graph();
  CHECK(g.FindNode("sum") == nullptr);
  CHECK(g.FindNode("two") == nullptr);  // left without consumers
  Node* folded = g.FindNode("y")->input_edge(1)->src;
  REQUIRE(folded->op() == "Const");
  Tensor v;
  REQUIRE(GetNodeAttr(folded->def().attrs, "value", &v).ok());
  CHECK(v.scalar<float>() == 20.f);
  CHECK(g.FindNode("rn") != nullptr);  // a random input is not constant
  CHECK(g.FindNode("r") != nullptr);
}

TEST_CASE("Constant folding in a Session gives the same results", "[passes][constant_folding]") {
  Scope root = Scope::NewRootScope();
  auto c = ops::Const(root.WithOpName("c"), std::vector<float>{1, 2, 3}, TensorShape({3}));
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({3}));
  ops::Mul(root.WithOpName("y"), x, ops::Exp(root.WithOpName("e"), c));
  REQUIRE(root.ok());
  Tensor feed = Tensor::FromVector<float>({1, 1, 2}, TensorShape({3}));
  std::vector<std::vector<float>> results;
  for (bool fold : {false, true}) {
    SessionOptions opts;
    if (fold) opts.passes = {"constant_folding"};
    auto s = Session::Create(opts);
    REQUIRE((*s)->Extend(root.ToGraphDef()).ok());
    RunMetadata md;
    std::vector<Tensor> out;
    REQUIRE((*s)->Run(RunOptions(), {{"x:0", feed}}, {"y:0"}, {}, &out, &md).ok());
    results.push_back(test::Values<float>(out[0]));
    if (fold) CHECK(md.pass_reports == std::vector<std::string>{"constant_folding: 1 change (folded 'e' (Exp))"});
  }
  CHECK(results[0] == results[1]);
}

TEST_CASE("Constant folding leaves control flow alone and keeps loop constants in their frame",
          "[passes][constant_folding]") {
  Scope root = Scope::NewRootScope();
  auto out = ops::WhileLoop(
      root.WithOpName("w"), {ops::Const(root.WithOpName("zero"), 0.0f)},
      [](const Scope& s, const std::vector<Output>& v) {
        return ops::Less(s, v[0], ops::Const(s.WithOpName("limit"), 3.0f));
      },
      [](const Scope& s, const std::vector<Output>& v) {
        auto two = ops::Add(s.WithOpName("two"), ops::Const(s.WithOpName("one"), 1.0f),
                            ops::Const(s.WithOpName("also_one"), 1.0f));
        return std::vector<Output>{ops::Add(s, v[0], two)};
      });
  REQUIRE(root.ok());
  PassReport rep = FoldConstants(root.graph());
  // Not the Enters of 'zero' and 'limit' (their Consts would leave the loop frame); 'two' is
  // folded into a Const that keeps the loop constants' wait on the body's pivot.
  REQUIRE(rep.changes.size() == 1);
  CHECK_THAT(rep.changes[0], Catch::Contains("(Add)"));
  for (Node* n : root.graph()->nodes()) {
    if (n->op() != "Enter") continue;
    INFO(n->name());
    CHECK(n->input_edge(0) != nullptr);
  }
  auto s = test::MakeSession(root.ToGraphDef());
  CHECK(test::Values<float>(test::RunOk(s.get(), {}, {out[0].name()})[0]) ==
        std::vector<float>{4.0f});
}

}  // namespace
}  // namespace fb
