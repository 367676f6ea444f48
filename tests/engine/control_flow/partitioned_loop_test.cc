// A loop whose body spans two devices (whitepaper 4.4): after partitioning, each device runs
// the iterations with its own control-loop state machine, and the results equal the one-device
// run.
#include "engine/autodiff/gradients.h"
#include "engine/client/nn_ops.h"
#include "engine/partition/partition.h"
#include "engine/placement/placer.h"
#include "tests/engine/control_flow/control_flow_test_util.h"
#include "tests/gradient_checker.h"

namespace fb {
namespace {

constexpr const char* kCpu1 = "/device:CPU:1";

Output Int(const Scope& s, int v) { return ops::Const(s, static_cast<int32_t>(v)); }

// Sums k^2 for k < n with the squaring (and a constant) on CPU:1, the loop itself on CPU:0.
std::vector<Output> SquareSum(const Scope& root, Output n) {
  return ops::WhileLoop(
      root, {Int(root, 0), Int(root, 0)},
      [&](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], n); },
      [](const Scope& s, const std::vector<Output>& v) {
        Scope remote = s.WithDevice(kCpu1);
        auto sq = ops::Add(remote, ops::Mul(remote, v[0], v[0]), Int(remote, 0));
        return std::vector<Output>{ops::Add(s, v[0], Int(s, 1)), ops::Add(s, v[1], sq)};
      });
}

TEST_CASE("A loop spanning two devices gets a control loop per partition", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DataType::kInt32);
  SquareSum(root, n);
  REQUIRE(root.ok());
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  DeviceSet devices{{"/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 0},
                    {"/job:localhost/replica:0/task:0/device:CPU:1", "CPU", 0}};
  REQUIRE(PlaceGraph(g->get(), devices, "").ok());
  std::map<std::string, GraphDef> parts;
  Status s = Partition(**g, &parts);
  INFO(s.ToString());
  REQUIRE(s.ok());
  REQUIRE(parts.size() == 2);
  auto count = [](const GraphDef& d, const std::string& op, const std::string& part) {
    int k = 0;
    for (const NodeDef& n : d.nodes) k += n.op == op && n.name.find(part) != std::string::npos;
    return k;
  };
  const GraphDef& remote = parts.at(devices[1].name);
  CHECK(count(remote, "Merge", "_control_loop") == 1);
  CHECK(count(remote, "_Recv", "/cond_recv") == 1);
  CHECK(count(parts.at(devices[0].name), "_Send", "/cond_send") == 1);
}

TEST_CASE("A loop spanning two devices computes what one device does", "[control_flow]") {
  Scope root = Scope::NewRootScope();
  auto n = ops::Placeholder(root.WithOpName("n"), DataType::kInt32);
  auto out = SquareSum(root, n);
  auto session = test::SessionFor(root, 2, 2);
  for (int k : {0, 1, 5, 40}) {
    auto r = test::RunOk(session.get(), {{"n:0", Tensor::Scalar<int32_t>(k)}}, {out[1].name()});
    CHECK(r[0].scalar<int32_t>() == (k - 1) * k * (2 * k - 1) / 6);
  }
}

TEST_CASE("Nested loops and gradients across two devices", "[control_flow][gradient]") {
  // The recurrence's matrix product runs on `device` (CPU:1); the loops, on CPU:0.
  auto nested = [](const Scope& s, const std::vector<Output>& x, const std::string& device) {
    Output w = x[0];
    return ops::WhileLoop(
        s, {Int(s, 0), x[1]},
        [](const Scope& c, const std::vector<Output>& v) { return ops::Less(c, v[0], Int(c, 2)); },
        [w, device](const Scope& b, const std::vector<Output>& v) {
          auto inner = ops::WhileLoop(
              b, {Int(b, 0), v[1]},
              [](const Scope& c, const std::vector<Output>& u) {
                return ops::Less(c, u[0], Int(c, 3));
              },
              [w, device](const Scope& c, const std::vector<Output>& u) {
                auto prod = ops::MatMul(c.WithDevice(device), w, u[1]);
                return std::vector<Output>{ops::Add(c, u[0], Int(c, 1)), ops::Tanh(c, prod)};
              });
          return std::vector<Output>{ops::Add(b, v[0], Int(b, 1)), inner[1]};
        })[1];
  };
  // The loop and its gradient on two devices against the same graph on one device.
  Tensor wv = test::RandomDouble({2, 2}, -1, 1, 21), xv = test::RandomDouble({2, 1}, -1, 1, 22);
  auto run = [&](const std::string& device, int num_cpu) {
    Scope root = Scope::NewRootScope();
    auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
    auto x = ops::Placeholder(root.WithOpName("x"), DataType::kDouble);
    Output y = nested(root, {w, x}, device);
    std::vector<NodeOut> grads;
    REQUIRE(AddSymbolicGradients(root.graph(), {y}, {w, x}, {}, &grads).ok());
    auto session = test::SessionFor(root, num_cpu, 2);
    return test::RunOk(session.get(), {{"w:0", wv}, {"x:0", xv}},
                       {y.name(), grads[0].name(), grads[1].name()});
  };
  auto two = run(kCpu1, 2), one = run("", 1);
  for (int i = 0; i < 3; ++i) test::ExpectClose(two[i], one[i], 1e-12, 1e-12);
  auto f = [&](const Scope& s, const std::vector<Output>& x) { return nested(s, x, ""); };
  CHECK(test::MaxGradientError(f, {wv, xv}) < 1e-6);
}

}  // namespace
}  // namespace fb
