// Switch/Merge kernels and dead-value propagation (whitepaper 4.4), on hand-built graphs.
#include "tests/engine/control_flow/control_flow_test_util.h"

namespace fb {
namespace {

using test::RunOk;
using test::SessionFor;

TEST_CASE("Switch forwards data to the taken output, the other is dead", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, 3.0f);
  auto p = ops::Placeholder(root.WithOpName("p"), DataType::kBool);
  Node* sw = ops::AddOp(root.WithOpName("sw"), "Switch", {x, p});
  auto t = ops::Mul(root.WithOpName("t"), Output(sw, 1), ops::Const(root, 2.0f));
  auto f = ops::Add(root.WithOpName("f"), Output(sw, 0), ops::Const(root, 1.0f));
  auto session = SessionFor(root);
  auto out = RunOk(session.get(), {{"p:0", Tensor::Scalar<bool>(true)}}, {"t:0"});
  CHECK(out[0].scalar<float>() == 6.0f);
  out = RunOk(session.get(), {{"p:0", Tensor::Scalar<bool>(false)}}, {"f:0"});
  CHECK(out[0].scalar<float>() == 4.0f);
  // Fetching the dead side is an error that says so.
  std::vector<Tensor> dead;
  Status s = session->Run({{"p:0", Tensor::Scalar<bool>(true)}}, {"f:0"}, {}, &dead);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("untaken branch"));
}

TEST_CASE("Merge forwards the live input and its index", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, 5.0f);
  auto p = ops::Placeholder(root.WithOpName("p"), DataType::kBool);
  Node* sw = ops::AddOp(root.WithOpName("sw"), "Switch", {x, p});
  auto t = ops::Mul(root, Output(sw, 1), ops::Const(root, 10.0f));
  auto f = ops::Neg(root, Output(sw, 0));
  Node* m = ops::AddOpWithList(root.WithOpName("m"), "Merge", {{f, t}});
  REQUIRE(m != nullptr);
  auto session = SessionFor(root);
  auto out = RunOk(session.get(), {{"p:0", Tensor::Scalar<bool>(true)}}, {"m:0", "m:1"});
  CHECK(out[0].scalar<float>() == 50.0f);
  CHECK(out[1].scalar<int32_t>() == 1);
  out = RunOk(session.get(), {{"p:0", Tensor::Scalar<bool>(false)}}, {"m:0", "m:1"});
  CHECK(out[0].scalar<float>() == -5.0f);
  CHECK(out[1].scalar<int32_t>() == 0);
}

TEST_CASE("Dead values skip every kernel until a Merge", "[control_flow]") {
  // The untaken branch holds an op that would fail (CheckNumerics of log(-1) = NaN) and an
  // unfed Placeholder; neither runs, so the step succeeds.
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, -1.0f);
  auto p = ops::Placeholder(root.WithOpName("p"), DataType::kBool);
  Node* sw = ops::AddOp(root.WithOpName("sw"), "Switch", {x, p});
  auto bad = ops::Op(root.WithOpName("bad"), "CheckNumerics", {ops::Log(root, Output(sw, 1))},
                     {{"message", std::string("must not run")}});
  // Control edges carry the deadness of their source node: hang them on an Identity of the
  // branch (the builders' pivot), not on the Switch itself.
  auto pivot = ops::Identity(root, Output(sw, 1));
  auto unfed = ops::Placeholder(root.WithOpName("unfed").WithControlDependencies({pivot}),
                                DataType::kFloat);
  auto t = ops::Add(root, bad, unfed);
  auto f = ops::Square(root, Output(sw, 0));
  Node* m = ops::AddOpWithList(root.WithOpName("m"), "Merge", {{f, t}});
  REQUIRE(m != nullptr);
  auto session = SessionFor(root);
  auto out = RunOk(session.get(), {{"p:0", Tensor::Scalar<bool>(false)}}, {"m:0"});
  CHECK(out[0].scalar<float>() == 1.0f);
  // Taking that branch does run the failing op, and the error names it.
  std::vector<Tensor> o;
  Status s = session->Run({{"p:0", Tensor::Scalar<bool>(true)}, {"unfed:0", Tensor::Scalar(1.0f)}},
                          {"m:0"}, {}, &o);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("bad"));
}

TEST_CASE("ControlTrigger runs even when its control inputs are dead", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), DataType::kBool);
  Node* sw = ops::AddOp(root.WithOpName("sw"), "Switch", {ops::Const(root, 1.0f), p});
  auto dead = ops::Identity(root, Output(sw, 1));
  Node* trig = ops::AddOp(root.WithOpName("trig").WithControlDependencies({dead}),
                          "ControlTrigger", {});
  Node* noop = ops::AddOp(root.WithOpName("noop").WithControlDependencies({dead}), "NoOp", {});
  REQUIRE(trig != nullptr);
  auto after =
      ops::Const(root.WithOpName("after").WithControlDependencies(std::vector<Node*>{trig}), 7.0f);
  ops::Const(root.WithOpName("after_noop").WithControlDependencies(std::vector<Node*>{noop}), 7.0f);
  auto session = SessionFor(root);
  auto out = RunOk(session.get(), {{"p:0", Tensor::Scalar<bool>(false)}}, {"after:0"});
  CHECK(out[0].scalar<float>() == 7.0f);
  // A NoOp in the same place is dead, and so is what follows it.
  std::vector<Tensor> o;
  Status s = session->Run({{"p:0", Tensor::Scalar<bool>(false)}}, {"after_noop:0"}, {}, &o);
  CHECK_THAT(s.message(), Catch::Contains("untaken branch"));
}

TEST_CASE("Switch rejects a non-scalar predicate, naming the node", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto p = ops::Placeholder(root.WithOpName("p"), DataType::kBool);
  ops::AddOp(root.WithOpName("sw"), "Switch", {ops::Const(root, 1.0f), p});
  auto session = SessionFor(root);
  std::vector<Tensor> out;
  Status s = session->Run({{"p:0", Tensor::FromVector<bool>({true, false})}}, {"sw:1"}, {}, &out);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("'sw'") && Catch::Contains("pred must be a scalar"));
}

}  // namespace
}  // namespace fb
