// The "random" placer: a node's device depends on the seed and its name only, so that the
// Session's full client graph and the simulator's pruned step graph place shared nodes alike.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/placement/device_config.h"
#include "engine/placement/placer.h"

namespace fb {
namespace {

// `chains` independent chains c<i>_0 -> c<i>_1 -> ... of `length` Neg on a Placeholder; with
// `extra`, another chain e_* ahead of them in the graph.
std::unique_ptr<Graph> Chains(int chains, int length, bool extra) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({4}));
  if (extra) {
    Output e = x;
    for (int j = 0; j < 30; ++j) e = ops::Neg(root.WithOpName("e_" + std::to_string(j)), e);
  }
  for (int i = 0; i < chains; ++i) {
    Output prev = x;
    for (int j = 0; j < length; ++j)
      prev = ops::Neg(root.WithOpName("c" + std::to_string(i) + "_" + std::to_string(j)), prev);
  }
  REQUIRE(root.ok());
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  return std::move(*g);
}

std::map<std::string, std::string> Place(Graph* g, uint64_t seed) {
  const Status s = PlaceGraph(g, LocalDevices("CPU", 4), "random", PlacerOptions{seed});
  INFO(s.ToString());
  REQUIRE(s.ok());
  std::map<std::string, std::string> out;
  for (Node* n : g->nodes()) out[n->name()] = n->assigned_device();
  return out;
}

TEST_CASE("Random placement of a node does not depend on the other nodes of the graph",
          "[placement][placer][random]") {
  auto small = Chains(2, 20, false);
  auto large = Chains(2, 20, true);  // 30 more nodes placed before the shared ones
  const auto a = Place(small.get(), 7);
  const auto b = Place(large.get(), 7);
  int compared = 0;
  for (const auto& [name, device] : a) {
    INFO(name);
    CHECK(b.at(name) == device);
    ++compared;
  }
  CHECK(compared == 41);
}

TEST_CASE("Random placement spreads nodes over the devices and changes with the seed",
          "[placement][placer][random]") {
  // A fresh graph per placement: an assigned device is kept as a constraint.
  const auto one = Place(Chains(4, 25, false).get(), 1);
  const auto again = Place(Chains(4, 25, false).get(), 1);
  const auto two = Place(Chains(4, 25, false).get(), 2);
  CHECK(one == again);
  std::set<std::string> used;
  int differ = 0;
  for (const auto& [name, device] : one) {
    used.insert(device);
    differ += two.at(name) != device;
  }
  CHECK(used.size() == 4);  // 101 nodes: every device gets some
  CHECK(differ > 50);       // about 3/4 of 101 nodes move to another device
}

}  // namespace
}  // namespace fb
