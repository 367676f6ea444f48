#include "engine/placement/placer.h"

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/device_name.h"
#include "engine/placement/device_config.h"
#include "engine/placement/step_prediction.h"

namespace fb {
namespace {

const std::string kCpu0 = LocalDeviceName("CPU", 0);
const std::string kCpu1 = LocalDeviceName("CPU", 1);

DeviceSet Devices(int n, int64_t memory_limit = 0) {
  DeviceSet d = LocalDevices("CPU", n);
  for (DeviceDesc& x : d) {
    x.peak_flops_per_s = 1e9;
    x.memory_bandwidth_bytes_per_s = 1e9;
    x.launch_overhead_ns = 1000;
    x.memory_limit_bytes = memory_limit;
  }
  return d;
}

CostModel Model(const Graph& g, DeviceSet d, LinkSet links = {}) {
  auto m = CostModel::Create(g, std::move(d), std::move(links));
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  return std::move(*m);
}

Placement PlaceOk(const Graph& g, const CostModel& cost, const std::string& placer) {
  auto p = ComputePlacement(g, cost, placer);
  INFO(placer << ": " << p.status().ToString());
  REQUIRE(p.ok());
  return *p;
}

// Two independent chains x_i -> MatMul -> MatMul, each about 2 ms of compute at 1 GFLOP/s.
Scope TwoChains() {
  Scope root = Scope::NewRootScope();
  for (int i = 0; i < 2; ++i) {
    std::string s = std::to_string(i);
    auto x = ops::Placeholder(root.WithOpName("x" + s), DataType::kFloat, TensorShape({100, 100}));
    auto a = ops::MatMul(root.WithOpName("a" + s), x, x);
    ops::MatMul(root.WithOpName("b" + s), a, a);
  }
  REQUIRE(root.ok());
  return root;
}

TEST_CASE("Placer registry lists the placers and names unknown ones", "[placement][placer]") {
  auto names = PlacerRegistry::Global()->Names();
  for (const char* want : {"single", "round_robin", "random", "greedy", "heft"})
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  auto bad = PlacerRegistry::Global()->Create("magic");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == Code::kNotFound);
  CHECK_THAT(bad.status().message(), Catch::Contains("magic") && Catch::Contains("greedy"));
}

TEST_CASE("Colocation groups share a device under every placer (4.3)", "[placement][placer]") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w"), TensorShape({10}), DataType::kFloat);
  auto v = ops::Const(root.WithOpName("v"), std::vector<float>(10, 1.f), TensorShape({10}));
  auto assign = ops::Assign(root.WithOpName("assign").WithDevice("/device:CPU:1"), w, v);
  // colocated by attr only: no Ref edge
  auto n = ops::Neg(root.WithOpName("neg"), v);
  REQUIRE(root.ok());
  n.node()->mutable_def()->attrs["_class"] = std::vector<std::string>{"loc:@w"};
  CostModel cost = Model(*root.graph(), Devices(3));
  auto c = BuildPlacementConstraints(*root.graph(), cost.devices());
  REQUIRE(c.ok());
  CHECK(c->group[w.node()->id()] == c->group[assign.node()->id()]);
  CHECK(c->group[w.node()->id()] == c->group[n.node()->id()]);
  CHECK(c->group[w.node()->id()] != c->group[v.node()->id()]);
  for (const std::string& placer : PlacerRegistry::Global()->Names()) {
    Placement p = PlaceOk(*root.graph(), cost, placer);
    INFO(placer);
    CHECK(p.of(*w.node()) == 1);  // the group's only feasible device: assign asks for CPU:1
    CHECK(p.of(*assign.node()) == 1);
    CHECK(p.of(*n.node()) == 1);
  }
}

TEST_CASE("Conflicting constraints name the nodes in conflict", "[placement][placer]") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Variable(root.WithOpName("w").WithDevice("/device:CPU:0"), TensorShape({2}),
                         DataType::kFloat);
  auto v = ops::Const(root.WithOpName("v"), std::vector<float>(2, 1.f), TensorShape({2}));
  ops::Assign(root.WithOpName("assign_w").WithDevice("/device:CPU:1"), w, v);
  REQUIRE(root.ok());
  CostModel cost = Model(*root.graph(), Devices(2));
  auto p = ComputePlacement(*root.graph(), cost, "greedy");
  REQUIRE_FALSE(p.ok());
  CHECK(p.status().code() == Code::kInvalidArgument);
  CHECK_THAT(p.status().message(), Catch::Contains("conflicting placement constraints") &&
                                       Catch::Contains("'w'") && Catch::Contains("'assign_w'") &&
                                       Catch::Contains("/device:CPU:1"));
}

TEST_CASE("A request no device satisfies names the node and the devices", "[placement][placer]") {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("on_gpu").WithDevice("/device:GPU:*"), 1.f);
  REQUIRE(root.ok());
  CostModel cost = Model(*root.graph(), Devices(2));
  auto p = ComputePlacement(*root.graph(), cost, "single");
  REQUIRE_FALSE(p.ok());
  CHECK_THAT(p.status().message(), Catch::Contains("'on_gpu'") &&
                                       Catch::Contains("/device:GPU:*") && Catch::Contains(kCpu1));
  Scope other = Scope::NewRootScope();
  ops::Const(other.WithOpName("c"), 1.f);
  other.graph()->FindNode("c")->mutable_def()->attrs["_class"] =
      std::vector<std::string>{"loc:@ghost"};
  CostModel cost2 = Model(*other.graph(), Devices(1));
  auto q = ComputePlacement(*other.graph(), cost2, "single");
  REQUIRE_FALSE(q.ok());
  CHECK_THAT(q.status().message(), Catch::Contains("'ghost'"));
}

TEST_CASE("Placers respect per-device memory limits", "[placement][placer]") {
  Scope root = Scope::NewRootScope();
  // Two 4000-byte variables; each device holds 6000 bytes, so they must be split.
  ops::Variable(root.WithOpName("w1"), TensorShape({1000}), DataType::kFloat);
  ops::Variable(root.WithOpName("w2"), TensorShape({1000}), DataType::kFloat);
  REQUIRE(root.ok());
  CostModel cost = Model(*root.graph(), Devices(2, 6000));
  for (const std::string& placer : PlacerRegistry::Global()->Names()) {
    INFO(placer);
    Placement p = PlaceOk(*root.graph(), cost, placer);
    CHECK(p.of(*root.graph()->FindNode("w1")) != p.of(*root.graph()->FindNode("w2")));
  }
  CostModel tiny = Model(*root.graph(), Devices(2, 3000));
  auto p = ComputePlacement(*root.graph(), tiny, "greedy");
  REQUIRE_FALSE(p.ok());
  CHECK(p.status().code() == Code::kResourceExhausted);
  CHECK_THAT(p.status().message(), Catch::Contains("'w1'") && Catch::Contains("4000 bytes"));
}

TEST_CASE("Greedy spreads independent chains: single and greedy step times by hand",
          "[placement][placer][greedy]") {
  Scope root = TwoChains();
  const Graph& g = *root.graph();
  LinkSet links;
  links.default_link = LinkDesc{"", "", 1000, 1e9};
  CostModel cost = Model(g, Devices(2), links);
  // MatMul [100,100]x[100,100]: 2e6 FLOPs = 2 ms at 1 GFLOP/s, plus 1 us launch.
  const double mm = 1000 + 2e6;
  const double ph = 1000;  // Placeholder: launch only
  Placement single = PlaceOk(g, cost, "single");
  auto ps = PredictStep(g, cost, single);
  REQUIRE(ps.ok());
  CHECK(ps->step_ns == Approx(2 * ph + 4 * mm));
  CHECK(ps->bytes_crossing == 0);
  Placement greedy = PlaceOk(g, cost, "greedy");
  CHECK(greedy.of(*g.FindNode("a0")) == greedy.of(*g.FindNode("b0")));
  CHECK(greedy.of(*g.FindNode("a1")) == greedy.of(*g.FindNode("b1")));
  CHECK(greedy.of(*g.FindNode("b0")) != greedy.of(*g.FindNode("b1")));
  auto pg = PredictStep(g, cost, greedy);
  REQUIRE(pg.ok());
  CHECK(pg->step_ns < ps->step_ns * 0.6);
  auto heft = ComputePlacement(g, cost, "heft");
  REQUIRE(heft.ok());
  auto ph2 = PredictStep(g, cost, *heft);
  REQUIRE(ph2.ok());
  CHECK(ph2->step_ns < ps->step_ns * 0.6);
}

TEST_CASE("Greedy counts transfer time: a slow link keeps a chain together",
          "[placement][placer][greedy]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({1000, 1000}));
  auto a = ops::Neg(root.WithOpName("a"), x);
  auto b = ops::Neg(root.WithOpName("b"), x);
  ops::Add(root.WithOpName("c"), a, b);
  REQUIRE(root.ok());
  LinkSet slow;
  slow.default_link = LinkDesc{"", "", 1e6, 1e6};  // 4 MB take 4 s
  CostModel cost = Model(*root.graph(), Devices(2), slow);
  Placement p = PlaceOk(*root.graph(), cost, "greedy");
  for (const char* n : {"a", "b", "c"}) CHECK(p.of(*root.graph()->FindNode(n)) == 0);
  // With a fast link, b runs on the idle device: one 4 MB tensor to send, b's result back.
  LinkSet fast;
  fast.default_link = LinkDesc{"", "", 0, 1e12};
  CostModel cost_fast = Model(*root.graph(), Devices(2), fast);
  Placement q = PlaceOk(*root.graph(), cost_fast, "greedy");
  CHECK(q.of(*root.graph()->FindNode("b")) == 1);
  auto pred = PredictStep(*root.graph(), cost_fast, q);
  REQUIRE(pred.ok());
  CHECK(pred->num_transfers == 2);
  CHECK(pred->bytes_crossing == 2 * 4000000);
}

TEST_CASE("PredictStep: peak memory per device by hand", "[placement][prediction]") {
  // w (Variable, 400 B persistent) ; x (Placeholder 400 B) -> n1 = Neg(x) -> n2 = Neg(n1).
  // On one device: x is live until n1 ends, n1 until n2 ends: peak = 400 (w) + 400 + 400.
  Scope root = Scope::NewRootScope();
  ops::Variable(root.WithOpName("w"), TensorShape({100}), DataType::kFloat);
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({100}));
  auto n1 = ops::Neg(root.WithOpName("n1"), x);
  ops::Neg(root.WithOpName("n2"), n1);
  REQUIRE(root.ok());
  CostModel cost = Model(*root.graph(), Devices(2));
  Placement p = PlaceOk(*root.graph(), cost, "single");
  auto pred = PredictStep(*root.graph(), cost, p);
  REQUIRE(pred.ok());
  CHECK(pred->peak_bytes[0] == 1200);
  CHECK(pred->peak_bytes[1] == 0);
  CHECK(pred->num_nodes[0] == 4);
}

}  // namespace
}  // namespace fb
