// VariableStore's data-parallel modes (experiments/models/layers.h): Variables created from recorded
// specs match a single-process model of the same seed; a Reusing store reads given Variables.
#include "experiments/models/layers.h"

#include <catch2/catch.hpp>

#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "experiments/models/models.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

int CountVariables(const Graph& g) {
  int n = 0;
  for (Node* node : g.nodes()) n += node->op() == "Variable";
  return n;
}

Output Images(const Scope& s) {
  return ops::Placeholder(s.WithOpName("images"), DataType::kFloat, TensorShape{-1, 28, 28, 1});
}

// A graph holding LeNet's Variables (built by a forward pass under "probe/"), and them.
std::pair<Scope, std::vector<Output>> ProbedVariables(const ForwardFn& forward, const ModelOptions& o) {
  Scope root = Scope::NewRootScope();
  VariableStore probe(o.seed);
  forward(root.NewSubScope("probe"), Images(root.NewSubScope("probe")), o, &probe);
  REQUIRE(root.ok());
  return {root, probe.variables()};
}

TEST_CASE("Variables created from recorded specs equal a single-process LeNet's", "[train]") {
  ModelOptions o;
  o.seed = 3;
  auto forward = LookupForward("lenet");
  REQUIRE(forward.ok());
  Scope scratch = Scope::NewRootScope();
  VariableStore probe(o.seed);
  (*forward)(scratch, Images(scratch), o, &probe);
  REQUIRE(scratch.ok());
  REQUIRE(probe.specs().size() == 10);  // 5 layers: weights and biases
  CHECK(probe.specs()[0].name == "conv1/weights");
  CHECK(probe.specs()[0].shape == TensorShape{5, 5, 1, 6});
  CHECK(probe.specs()[1].zeros);

  Scope root = Scope::NewRootScope();
  VariableStore store(o.seed);
  REQUIRE(store.CreateFromSpecs(root, probe.specs()).ok());
  auto model = BuildModel("lenet", o);
  REQUIRE(model.ok());
  REQUIRE(store.variables().size() == model->variables.size());
  std::vector<std::string> names;
  for (size_t i = 0; i < model->variables.size(); ++i) {
    CHECK(store.variables()[i].node()->name() == model->variables[i].name);
    names.push_back(model->variables[i].name);
  }
  Node* init = ops::Group(root.WithOpName("init"), store.initializers());
  REQUIRE(init != nullptr);
  auto created = test::MakeSession(root.ToGraphDef());
  test::RunOk(created.get(), {}, {}, {init->name()});
  auto single = test::MakeSession(model->scope.ToGraphDef());
  test::RunOk(single.get(), {}, {}, {model->init});
  const auto a = test::RunOk(created.get(), {}, names, {});
  const auto b = test::RunOk(single.get(), {}, names, {});
  for (size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(test::Values<float>(a[i]) == test::Values<float>(b[i]));
  }
}

TEST_CASE("A Reusing store reads the given Variables and checks their number and shapes", "[train]") {
  ModelOptions o;
  auto forward = LookupForward("lenet");
  REQUIRE(forward.ok());
  auto [root, vars] = ProbedVariables(*forward, o);
  const int variables_before = CountVariables(*root.graph());
  Scope replica = root.NewSubScope("replica_0");
  VariableStore reuse = VariableStore::Reusing(vars);
  (*forward)(replica, Images(replica), o, &reuse);
  REQUIRE(root.ok());
  CHECK(CountVariables(*root.graph()) == variables_before);
  CHECK(reuse.initializers().empty());
  REQUIRE(reuse.variables().size() == vars.size());
  CHECK(root.graph()->FindNode("replica_0/conv1/weights/read") != nullptr);

  // Too few Variables: the error names the first missing one.
  auto [short_root, short_vars] = ProbedVariables(*forward, o);
  std::vector<Output> two(short_vars.begin(), short_vars.begin() + 2);
  VariableStore too_few = VariableStore::Reusing(two);
  Scope short_replica = short_root.NewSubScope("replica_0");
  (*forward)(short_replica, Images(short_replica), o, &too_few);
  CHECK_THAT(short_root.status().message(), Catch::Contains("replica_0/conv2/weights"));

  // Wrong shapes: conv1's biases given where conv1's weights are asked for.
  auto [bad_root, swapped] = ProbedVariables(*forward, o);
  std::swap(swapped[0], swapped[1]);
  VariableStore mismatched = VariableStore::Reusing(swapped);
  Scope bad_replica = bad_root.NewSubScope("replica_0");
  (*forward)(bad_replica, Images(bad_replica), o, &mismatched);
  CHECK_THAT(bad_root.status().message(), Catch::Contains("replica_0/conv1/weights"));
}

}  // namespace
}  // namespace fb::experiments
