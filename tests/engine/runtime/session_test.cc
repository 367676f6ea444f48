#include "engine/runtime/session.h"
#include "engine/runtime/subgraph.h"

#include <set>

#include <catch2/catch.hpp>

#include "tests/test_util.h"

namespace fb {
namespace {

using test::MakeSession;
using test::ParseGraph;
using test::RunOk;

// Whitepaper Figure 5: a graph where fetching f:0 with b fed must not run a, c or d's other
// branches. Nodes: a -> b -> c, b -> d -> e, e -> f; fetching f with b fed runs only d, e, f.
const char* kFigure5 = R"({"nodes": [
  {"name": "a", "op": "Const", "attrs": {"value": {"tensor": {"dtype": "float", "shape": [], "values": [1]}}, "dtype": {"type": "float"}}},
  {"name": "b", "op": "Identity", "inputs": ["a"], "attrs": {"T": {"type": "float"}}},
  {"name": "c", "op": "Identity", "inputs": ["b"], "attrs": {"T": {"type": "float"}}},
  {"name": "d", "op": "Identity", "inputs": ["b"], "attrs": {"T": {"type": "float"}}},
  {"name": "e", "op": "Identity", "inputs": ["d"], "attrs": {"T": {"type": "float"}}},
  {"name": "f", "op": "Identity", "inputs": ["e"], "attrs": {"T": {"type": "float"}}}
]})";

TEST_CASE("Run with a feed runs only the nodes the fetch needs (Figure 5)", "[session]") {
  SessionOptions no_passes;
  no_passes.default_passes = false;  // identity_removal would bypass the Identity chain d, e, f
  auto created = Session::Create(no_passes);
  REQUIRE(created.ok());
  auto s = std::move(*created);
  REQUIRE(s->Extend(ParseGraph(kFigure5)).ok());
  RunOptions opts;
  opts.trace = true;
  RunMetadata md;
  std::vector<Tensor> out;
  REQUIRE(s->Run(opts, {{"b:0", Tensor::Scalar<float>(7.f)}}, {"f:0"}, {}, &out, &md).ok());
  REQUIRE(out.size() == 1);
  CHECK(out[0].scalar<float>() == 7.f);
  std::set<std::string> ran;
  for (const auto& st : md.step_stats) ran.insert(st.node_name);
  CHECK(ran.count("d"));
  CHECK(ran.count("e"));
  CHECK(ran.count("f"));
  CHECK_FALSE(ran.count("a"));
  CHECK_FALSE(ran.count("b"));
  CHECK_FALSE(ran.count("c"));
}

TEST_CASE("Run without feeds computes the whole chain", "[session]") {
  auto s = MakeSession(ParseGraph(kFigure5));
  auto out = RunOk(s.get(), {}, {"f:0", "c:0"});
  CHECK(out[0].scalar<float>() == 1.f);
  CHECK(out[1].scalar<float>() == 1.f);
}

TEST_CASE("Executors are cached per feed/fetch/target signature", "[session]") {
  auto s = MakeSession(ParseGraph(kFigure5));
  RunOk(s.get(), {}, {"f:0"});
  RunOk(s.get(), {}, {"f:0"});
  CHECK(s->num_cached_executors() == 1);
  RunOk(s.get(), {{"b:0", Tensor::Scalar<float>(2.f)}}, {"f:0"});
  CHECK(s->num_cached_executors() == 2);
}

TEST_CASE("ExecutionSignature keeps feeds, fetches and targets apart", "[session]") {
  // The cache key of Session and Master: the same names in another role are another step.
  CHECK(ExecutionSignature({"b:0"}, {"f:0"}, {}) == "b:0,|f:0,||");
  std::set<std::string> keys = {ExecutionSignature({"a"}, {}, {}), ExecutionSignature({}, {"a"}, {}),
                                ExecutionSignature({}, {}, {"a"}), ExecutionSignature({"a", "b"}, {}, {}),
                                ExecutionSignature({"a"}, {"b"}, {})};
  CHECK(keys.size() == 5);
}

TEST_CASE("Bad feeds and fetches give errors naming the tensor", "[session][errors]") {
  auto s = MakeSession(ParseGraph(kFigure5));
  std::vector<Tensor> out;
  Status st = s->Run({{"nope:0", Tensor::Scalar<float>(1.f)}}, {"f:0"}, {}, &out);
  CHECK(st.code() == Code::kNotFound);
  CHECK_THAT(st.message(), Catch::Contains("feed 'nope:0': no node named 'nope'"));

  st = s->Run({{"b:0", Tensor::Scalar<int32_t>(1)}}, {"f:0"}, {}, &out);
  CHECK(st.code() == Code::kInvalidArgument);
  CHECK_THAT(st.message(), Catch::Contains("feed 'b:0' must be float, got int32"));

  st = s->Run({}, {"f:3"}, {}, &out);
  CHECK_THAT(st.message(), Catch::Contains("fetch 'f:3': node 'f' (Identity) has 1 outputs"));

  st = s->Run({}, {}, {"ghost"}, &out);
  CHECK_THAT(st.message(), Catch::Contains("target 'ghost'"));
}

TEST_CASE("Placeholder feeds are checked against the declared shape", "[session][errors]") {
  auto s = MakeSession(ParseGraph(R"({"nodes": [
    {"name": "x", "op": "Placeholder", "attrs": {"dtype": {"type": "float"}, "shape": {"shape": [-1, 3]}}},
    {"name": "y", "op": "Identity", "inputs": ["x"], "attrs": {"T": {"type": "float"}}}]})"));
  Tensor ok(DataType::kFloat, {2, 3});
  ok.flat<float>().setConstant(1.f);
  auto out = RunOk(s.get(), {{"x:0", ok}}, {"y:0"});
  CHECK(out[0].shape() == TensorShape({2, 3}));
  std::vector<Tensor> o;
  Status st = s->Run({{"x:0", Tensor(DataType::kFloat, {2, 4})}}, {"y:0"}, {}, &o);
  CHECK_THAT(st.message(), Catch::Contains("feed 'x:0' must have shape [?,3], got [2,4]"));
  st = s->Run({}, {"y:0"}, {}, &o);
  CHECK_THAT(st.message(), Catch::Contains("Placeholder 'x' must be fed"));
}

const char* kCounter = R"({"nodes": [
  {"name": "v", "op": "Variable", "attrs": {"shape": {"shape": []}, "dtype": {"type": "int32"}, "container": {"s": "c1"}}},
  {"name": "zero", "op": "Const", "attrs": {"value": {"tensor": {"dtype": "int32", "shape": [], "values": [0]}}, "dtype": {"type": "int32"}}},
  {"name": "one", "op": "Const", "attrs": {"value": {"tensor": {"dtype": "int32", "shape": [], "values": [1]}}, "dtype": {"type": "int32"}}},
  {"name": "init", "op": "Assign", "inputs": ["v", "zero"], "attrs": {"T": {"type": "int32"}}},
  {"name": "inc", "op": "AssignAdd", "inputs": ["v", "one"], "attrs": {"T": {"type": "int32"}}},
  {"name": "read", "op": "Identity", "inputs": ["v"], "attrs": {"T": {"type": "int32"}}}
]})";

TEST_CASE("Variables persist across Runs and across Sessions sharing a container", "[session][state]") {
  auto s = MakeSession(ParseGraph(kCounter));
  std::vector<Tensor> out;
  Status st = s->Run({}, {"read:0"}, {}, &out);
  CHECK(st.code() == Code::kFailedPrecondition);
  CHECK_THAT(st.message(), Catch::Contains("uninitialized variable 'v'"));
  RunOk(s.get(), {}, {}, {"init"});
  for (int i = 0; i < 3; ++i) RunOk(s.get(), {}, {}, {"inc"});
  CHECK(RunOk(s.get(), {}, {"read:0"})[0].scalar<int32_t>() == 3);

  SessionOptions opts;
  opts.device_mgr = s->shared_device_mgr();
  auto s2 = Session::Create(opts);
  REQUIRE(s2.ok());
  REQUIRE((*s2)->Extend(ParseGraph(kCounter)).ok());
  RunOk(s2->get(), {}, {}, {"inc"});
  CHECK(RunOk(s.get(), {}, {"read:0"})[0].scalar<int32_t>() == 4);

  REQUIRE(s->Reset({"c1"}).ok());
  // The cached Variable kernel still holds the old state; a fresh session sees the reset.
  auto s3 = Session::Create(opts);
  REQUIRE((*s3)->Extend(ParseGraph(kCounter)).ok());
  st = (*s3)->Run({}, {"read:0"}, {}, &out);
  CHECK(st.code() == Code::kFailedPrecondition);
}

TEST_CASE("A failing kernel aborts the step with the node's name", "[session][errors]") {
  auto s = MakeSession(ParseGraph(kCounter));
  std::vector<Tensor> out;
  Status st = s->Run({}, {}, {"inc"}, &out);
  CHECK(st.code() == Code::kFailedPrecondition);
  CHECK_THAT(st.message(), Catch::Contains("AssignAdd 'inc'"));
}

TEST_CASE("Closed sessions refuse to run", "[session]") {
  auto s = MakeSession(ParseGraph(kFigure5));
  REQUIRE(s->Close().ok());
  std::vector<Tensor> out;
  CHECK(s->Run({}, {"f:0"}, {}, &out).code() == Code::kCancelled);
}

}  // namespace
}  // namespace fb
