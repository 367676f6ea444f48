#include "engine/passes/materialize_shapes.h"

#include <catch2/catch.hpp>

#include "engine/client/array_ops.h"
#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/passes/constant_folding.h"
#include "tests/engine/passes/graph_lines.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using Lines = std::vector<std::string>;

Tensor ConstValue(const Graph& g, const std::string& name) {
  Node* n = g.FindNode(name);
  REQUIRE(n != nullptr);
  REQUIRE(n->op() == "Const");
  Tensor v;
  REQUIRE(GetNodeAttr(n->def().attrs, "value", &v).ok());
  return v;
}

TEST_CASE("Materialize shapes replaces queries of known shapes by shared Consts",
          "[passes][materialize_shapes]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({2, 3}));
  auto e = ops::Exp(root.WithOpName("e"), x);
  Node* c = ops::NoOp(root.WithOpName("c"));
  ops::Reshape(root.WithOpName("r"), x,
               ops::Shape(root.WithOpName("s").WithControlDependencies(std::vector<Node*>{c}), e));
  ops::Reshape(root.WithOpName("r2"), e, ops::Shape(root.WithOpName("s2"), x));
  ops::Reshape(root.WithOpName("r3"), x, ops::Shape(root.WithOpName("s3"), e));
  ops::Neg(root.WithOpName("nz"), ops::Cast(root.WithOpName("sz"),
                                            ops::Size(root.WithOpName("size"), e, DataType::kInt64),
                                            DataType::kFloat));
  ops::Identity(root.WithOpName("rk"), ops::Rank(root.WithOpName("rank"), x));
  REQUIRE(root.ok());
  PassReport rep = MaterializeShapes(root.graph());
  // No control flow: the Consts are roots; 's' keeps its control input, so it is not shared.
  CHECK(rep.changes == Lines{"materialized 's' (Shape) = [2,3]", "materialized 's2' (Shape) = [2,3]",
                             "materialized 's3' (Shape) = [2,3] as 's2'",
                             "materialized 'size' (Size) = 6", "materialized 'rank' (Rank) = 2"});
  CHECK(test::GraphLines(*root.graph()) ==
        Lines{"c = NoOp()", "e = Exp(x:0)", "nz = Neg(sz:0)", "r = Reshape(x:0, s:0)",
              "r2 = Reshape(e:0, s2:0)", "r3 = Reshape(x:0, s2:0)", "rank = Const()",
              "rk = Identity(rank:0)", "s = Const(^c)", "s2 = Const()", "size = Const()",
              "sz = Cast(size:0)", "x = Placeholder()"});
  CHECK(test::Values<int32_t>(ConstValue(*root.graph(), "s2")) == std::vector<int32_t>{2, 3});
  CHECK(ConstValue(*root.graph(), "size").scalar<int64_t>() == 6);
  CHECK(ConstValue(*root.graph(), "rank").scalar<int32_t>() == 2);
}

TEST_CASE("Materialize shapes keeps queries of unknown dims, Variables and loops",
          "[passes][materialize_shapes]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({-1, 3}));
  ops::Shape(root.WithOpName("sx"), x);  // batch unknown
  auto v = ops::Variable(root.WithOpName("v"), TensorShape({4}), DataType::kFloat);
  ops::Shape(root.WithOpName("sv"), v);  // a reference: read through an Identity instead
  auto loop = ops::WhileLoop(
      root.WithOpName("w"), {ops::Const(root.WithOpName("zero"), 0.f)},
      [](const Scope& s, const std::vector<Output>& vars) {
        return ops::Less(s, vars[0], ops::Const(s, 3.f));
      },
      [](const Scope& s, const std::vector<Output>& vars) {
        auto n = ops::Cast(s.WithOpName("n"), ops::Size(s.WithOpName("in_loop"), vars[0]),
                           DataType::kFloat);
        return std::vector<Output>{ops::Add(s, vars[0], n)};
      });
  REQUIRE(root.ok());
  Lines before = test::GraphLines(*root.graph());
  PassReport rep = MaterializeShapes(root.graph());
  CHECK(rep.num_changes == 0);
  CHECK(test::GraphLines(*root.graph()) == before);
}

TEST_CASE("Materialize shapes does nothing when an Assign may reshape a Variable",
          "[passes][materialize_shapes]") {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DataType::kFloat);
  auto read = ops::Identity(root.WithOpName("read"), v);
  ops::Shape(root.WithOpName("s"), read);
  ops::Op(root.WithOpName("reshape_v"), "Assign",
          {v, ops::Const(root.WithOpName("three"), std::vector<float>{1, 2, 3}, TensorShape({3}))},
          {{"validate_shape", false}});
  REQUIRE(root.ok());
  CHECK(MaterializeShapes(root.graph()).num_changes == 0);
  CHECK(root.graph()->FindNode("s")->op() == "Shape");
}

// Lines of `g` (test::GraphLines) for the nodes named in `names` only.
Lines Only(const Graph& g, const std::vector<std::string>& names) {
  Lines out;
  for (const std::string& line : test::GraphLines(g))
    for (const std::string& n : names)
      if (line.rfind(n + " = ", 0) == 0) out.push_back(line);
  return out;
}

TEST_CASE("With control flow materialized shapes wait for their tensor and folding keeps that",
          "[passes][materialize_shapes][constant_folding]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Placeholder(root.WithOpName("a"), DataType::kFloat, TensorShape({2, 3}));
  auto b = ops::Placeholder(root.WithOpName("b"), DataType::kFloat, TensorShape({2, 5}));
  auto axis = ops::IntConst(root.WithOpName("axis"), {1}, true);
  auto offsets = ops::ConcatOffset(root.WithOpName("off"), axis,
                                   {ops::Shape(root.WithOpName("sa"), a),
                                    ops::Shape(root.WithOpName("sb"), b)});
  ops::Slice(root.WithOpName("slice"), ops::Concat(root.WithOpName("cat"), {a, b}, axis),
             offsets[1], ops::Shape(root.WithOpName("sb2"), b));
  // A conditional elsewhere in the graph: tensors may be dead, so Consts must wait.
  auto pred = ops::Placeholder(root.WithOpName("p"), DataType::kBool, TensorShape({}));
  ops::Cond(root.WithOpName("cond"), pred,
            [&](const Scope& s) { return std::vector<Output>{ops::Neg(s, a)}; },
            [&](const Scope& s) { return std::vector<Output>{ops::Exp(s, a)}; });
  REQUIRE(root.ok());
  CHECK(MaterializeShapes(root.graph()).changes ==
        Lines{"materialized 'sa' (Shape) = [2,3]", "materialized 'sb' (Shape) = [2,5]",
              "materialized 'sb2' (Shape) = [2,5]"});
  CHECK(Only(*root.graph(), {"sa", "sb", "sb2"}) ==
        Lines{"sa = Const(^a)", "sb = Const(^b)", "sb2 = Const(^b)"});
  PassReport folded = FoldConstants(root.graph());
  CHECK(folded.changes == Lines{"folded 'off' (ConcatOffset)"});
  // The folded offsets wait for both queried tensors, as the ConcatOffset did through its
  // inputs (the second output is used; the first has no consumer).
  CHECK(Only(*root.graph(), {"off/folded_0", "off/folded_1", "sa", "sb", "sb2", "slice"}) ==
        Lines{"off/folded_0 = Const(^a, ^b)", "off/folded_1 = Const(^a, ^b)", "sb2 = Const(^b)",
              "slice = Slice(cat:0, off/folded_1:0, sb2:0)"});
  CHECK(test::Values<int32_t>(ConstValue(*root.graph(), "off/folded_1")) ==
        std::vector<int32_t>{0, 3});
}

}  // namespace
}  // namespace fb
