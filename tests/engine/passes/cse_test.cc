#include "engine/passes/cse.h"

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/random_ops.h"
#include "engine/client/state_ops.h"
#include "tests/test_util.h"

namespace fb {
namespace {

TEST_CASE("CSE merges congruent nodes, cascading through value numbers", "[passes][cse]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
  auto y = ops::Placeholder(root.WithOpName("y"), DataType::kFloat);
  auto a1 = ops::Add(root.WithOpName("a1"), x, y);
  auto a2 = ops::Add(root.WithOpName("a2"), x, y);
  auto n1 = ops::Neg(root.WithOpName("n1"), a1);
  auto n2 = ops::Neg(root.WithOpName("n2"), a2);  // congruent once a2 became a1
   ops::Add(root.WithOpName("swapped"), y, x);  // operand order matters
  ops::Add(root.WithOpName("out"), n1, n2);
  REQUIRE(root.ok());
  int before = root.graph()->num_nodes();
  PassReport r = EliminateCommonSubexpressions(root.graph());
  CHECK(r.num_changes == 2);
  REQUIRE(r.changes.size() == 2);
  CHECK(r.changes[0] == "merged 'a2' into 'a1'");
  CHECK(r.changes[1] == "merged 'n2' into 'n1'");
  CHECK(root.graph()->num_nodes() == before - 2);
  CHECK(root.graph()->FindNode("swapped") != nullptr);
  Node* out = root.graph()->FindNode("out");
  CHECK(out->input_edge(0)->src->name() == "n1");
  CHECK(out->input_edge(1)->src->name() == "n1");
}

TEST_CASE("CSE never merges stateful, random or reference ops, nor different control inputs",
          "[passes][cse]") {
  Scope root = Scope::NewRootScope();
  auto r1 = ops::RandomUniform(root.WithOpName("r1"), {4}, DataType::kFloat, 1, 2);
   ops::RandomUniform(root.WithOpName("r2"), {4}, DataType::kFloat, 1, 2);
  auto v1 = ops::Variable(root.WithOpName("v1"), TensorShape({4}), DataType::kFloat);
   ops::Variable(root.WithOpName("v2"), TensorShape({4}), DataType::kFloat);
  auto as1 = ops::Assign(root.WithOpName("as1"), v1, r1);
  auto as2 = ops::Assign(root.WithOpName("as2"), v1, r1);
   ops::Neg(root.WithOpName("c1").WithControlDependencies(std::vector<Output>{as1}), r1);
   ops::Neg(root.WithOpName("c2").WithControlDependencies(std::vector<Output>{as2}), r1);
  REQUIRE(root.ok());
  PassReport r = EliminateCommonSubexpressions(root.graph());
  // Only the two shape constants {4} of r1 and r2 are congruent.
  REQUIRE(r.num_changes == 1);
  CHECK_THAT(r.changes[0], Catch::Contains("Const"));
  for (const char* n : {"r1", "r2", "v1", "v2", "as1", "as2", "c1", "c2"})
    CHECK(root.graph()->FindNode(n) != nullptr);
}

TEST_CASE("CSE through the Session: same results, report in RunMetadata", "[passes][cse]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root.WithOpName("x"), std::vector<float>{1, 2}, TensorShape({2}));
  auto s1 = ops::Square(root.WithOpName("s1"), x);
  auto s2 = ops::Square(root.WithOpName("s2"), x);
  ops::Sub(root.WithOpName("d"), ops::Exp(root.WithOpName("e1"), s1),
           ops::Neg(root.WithOpName("m"), s2));
  REQUIRE(root.ok());
  SessionOptions opts;
  opts.passes = {"cse"};
  opts.default_passes = false;  // constant folding would fold the whole graph first
  auto s = Session::Create(opts);
  REQUIRE(s.ok());
  REQUIRE((*s)->Extend(root.ToGraphDef()).ok());
  RunMetadata md;
  std::vector<Tensor> out;
  REQUIRE((*s)->Run(RunOptions(), {}, {"d:0", "s2:0"}, {}, &out, &md).ok());
  CHECK(test::Values<float>(out[0]) == std::vector<float>{std::exp(1.f) + 1, std::exp(4.f) + 4});
  CHECK(test::Values<float>(out[1]) == std::vector<float>{1, 4});
  REQUIRE(md.pass_reports.size() == 1);
  CHECK(md.pass_reports[0] == "cse: 1 change (merged 's2' into 's1')");
  SessionOptions bad;
  bad.passes = {"no_such_pass"};
  auto s3 = Session::Create(bad);
  REQUIRE((*s3)->Extend(root.ToGraphDef()).ok());
  Status st = (*s3)->Run({}, {"d:0"}, {}, &out);
  CHECK(st.code() == Code::kNotFound);
  CHECK_THAT(st.message(), Catch::Contains("no_such_pass") && Catch::Contains("cse"));
}

}  // namespace
}  // namespace fb
