#include "engine/passes/identity_removal.h"

#include <catch2/catch.hpp>

#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "tests/engine/passes/graph_lines.h"
#include "tests/test_util.h"

namespace fb {
namespace {

using Lines = std::vector<std::string>;

TEST_CASE("Identity removal bypasses chains and moves control edges",
          "[passes][identity_removal]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({2}));
  Node* c = ops::NoOp(root.WithOpName("c"));
  auto i1 = ops::Identity(root.WithOpName("i1").WithControlDependencies(std::vector<Node*>{c}), x);
  auto i2 = ops::Identity(root.WithOpName("i2"), i1);
  ops::Neg(root.WithOpName("y"), i2);
  ops::NoOp(root.WithOpName("after_i1").WithControlDependencies(std::vector<Output>{i1}));
  ops::Identity(root.WithOpName("unused"), x);  // no consumer: removed
  REQUIRE(root.ok());
  PassReport rep = RemoveIdentities(root.graph());
  CHECK(rep.changes == Lines{"removed 'unused'", "removed 'i1'", "removed 'i2'"});
  CHECK(test::GraphLines(*root.graph()) ==
        Lines{"after_i1 = NoOp(^c, ^x)", "c = NoOp()", "x = Placeholder()", "y = Neg(x:0, ^c)"});
}

TEST_CASE("Identity removal keeps Variable reads, device crossings and control flow",
          "[passes][identity_removal]") {
  Scope root = Scope::NewRootScope();
  auto v = ops::Variable(root.WithOpName("v"), TensorShape({2}), DataType::kFloat);
  ops::Neg(root.WithOpName("nv"), ops::Identity(root.WithOpName("v/read"), v));
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({}));
  auto moved = ops::Identity(root.WithOpName("to_cpu1").WithDevice("/device:CPU:1"), x);
  ops::Neg(root.WithOpName("nm"), moved);
  auto pred = ops::Placeholder(root.WithOpName("p"), DataType::kBool, TensorShape({}));
  ops::Cond(root.WithOpName("cond"), pred,
            [&](const Scope& s) { return std::vector<Output>{ops::Neg(s, x)}; },
            [&](const Scope& s) { return std::vector<Output>{ops::Exp(s, x)}; });
  ops::WhileLoop(
      root.WithOpName("w"), {x},
      [](const Scope& s, const std::vector<Output>& vars) {
        return ops::Less(s, vars[0], ops::Const(s, 3.f));
      },
      [](const Scope& s, const std::vector<Output>& vars) {
        return std::vector<Output>{ops::Identity(s.WithOpName("carried"), vars[0])};
      });
  REQUIRE(root.ok());
  Lines before = test::GraphLines(*root.graph());
  PassReport rep = RemoveIdentities(root.graph());
  CHECK(rep.num_changes == 0);
  CHECK(test::GraphLines(*root.graph()) == before);
}

TEST_CASE("Identity removal in a Session gives the same results", "[passes][identity_removal]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({3}));
  auto v = ops::Variable(root.WithOpName("v"), TensorShape({3}), DataType::kFloat);
  auto init = ops::Assign(root.WithOpName("init"), v, x);
  auto read = ops::Identity(root.WithOpName("read"), v);
  auto twice = ops::Identity(root.WithOpName("twice"), ops::Identity(root.WithOpName("once"), read));
  ops::Mul(root.WithOpName("y"), twice, x);
  REQUIRE(root.ok());
  Tensor feed = Tensor::FromVector<float>({1, 2, 3}, TensorShape({3}));
  for (bool defaults : {false, true}) {
    SessionOptions opts;
    opts.default_passes = defaults;
    auto s = Session::Create(opts);
    REQUIRE((*s)->Extend(root.ToGraphDef()).ok());
    std::vector<Tensor> out;
    REQUIRE((*s)->Run({{"x:0", feed}}, {}, {"init"}, &out).ok());
    RunMetadata md;
    REQUIRE((*s)->Run(RunOptions(), {{"x:0", feed}}, {"twice:0", "y:0"}, {}, &out, &md).ok());
    CHECK(test::Values<float>(out[0]) == std::vector<float>{1, 2, 3});
    CHECK(test::Values<float>(out[1]) == std::vector<float>{1, 4, 9});
    if (defaults)
      CHECK(md.pass_reports ==
            Lines{"identity_removal: 2 changes (removed 'once'; removed 'twice')"});
    else
      CHECK(md.pass_reports.empty());
  }
}

}  // namespace
}  // namespace fb
