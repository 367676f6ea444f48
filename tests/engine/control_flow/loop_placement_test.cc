// Placement rules that keep partitioned loops working (whitepaper 4.4):
// - the forward accumulators of a loop gradient live in one device's ResourceMgr and are named by
//   a host string: their Enters, AccumulatorPush and AccumulatorPop are colocated with the
//   ForwardAccumulator (engine/client/while_gradients.cc), so a Pop requested on another device
//   pulls the whole group there instead of finding no accumulator (and going dead);
// - a NextIteration and a non-constant Enter are placed with the Merge they feed
//   (engine/placement/constraints.cc): across devices, the Merge's _Recv would wait in iterations
//   that receive nothing and the loop would hang.
#include "engine/autodiff/gradients.h"
#include "engine/client/nn_ops.h"
#include "engine/placement/constraints.h"
#include "engine/placement/placer.h"
#include "tests/engine/control_flow/control_flow_test_util.h"

namespace fb {
namespace {

// x_{k+1} = tanh(W x_k), 3 times; the loss is sum(x_3). Fills `grads` with d loss / d(W, x_0).
Output Looped(const Scope& root, Output w, Output x0, std::vector<NodeOut>* grads) {
  auto int32 = [](const Scope& s, int v) { return ops::Const(s, static_cast<int32_t>(v)); };
  Output x3 = ops::WhileLoop(
      root, {int32(root, 0), x0},
      [&](const Scope& c, const std::vector<Output>& v) { return ops::Less(c, v[0], int32(c, 3)); },
      [&](const Scope& b, const std::vector<Output>& v) {
        return std::vector<Output>{ops::Add(b, v[0], int32(b, 1)),
                                   ops::Tanh(b, ops::MatMul(b, w, v[1]))};
      })[1];
  Output loss = ops::Sum(root, x3, std::vector<int>{0, 1});
  REQUIRE(AddSymbolicGradients(root.graph(), {loss}, {w, x0}, {}, grads).ok());
  return loss;
}

TEST_CASE("Loop-gradient accumulator nodes are colocated with their ForwardAccumulator",
          "[control_flow][gradient]") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
  auto x0 = ops::Placeholder(root.WithOpName("x0"), DataType::kDouble);
  std::vector<NodeOut> grads;
  Looped(root, w, x0, &grads);
  REQUIRE(root.ok());
  int accumulators = 0, colocated = 0;
  for (Node* n : root.graph()->nodes()) {
    if (n->op() == "ForwardAccumulator") ++accumulators;
    const std::vector<std::string> names = ColocationNames(*n);
    if (names.size() != 1) continue;
    Node* target = root.graph()->FindNode(names[0]);
    REQUIRE(target != nullptr);
    CHECK(target->op() == "ForwardAccumulator");
    CHECK((n->op() == "Enter" || n->op() == "AccumulatorPush" || n->op() == "AccumulatorPop"));
    ++colocated;
  }
  REQUIRE(accumulators > 0);
  CHECK(colocated == 4 * accumulators);  // two Enters, a Push and a Pop each
}

TEST_CASE("A Pop placed on another device takes its accumulator along",
          "[control_flow][gradient]") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
  auto x0 = ops::Placeholder(root.WithOpName("x0"), DataType::kDouble);
  std::vector<NodeOut> grads;
  Output loss = Looped(root, w, x0, &grads);
  REQUIRE(root.ok());
  GraphDef split = root.ToGraphDef();
  int pops = 0;
  for (NodeDef& n : split.nodes) {
    if (n.op == "AccumulatorPop") {
      n.device = "/device:CPU:1";
      ++pops;
    } else if (n.op != "ForwardAccumulator" && n.op != "AccumulatorPush" && n.op != "Enter") {
      n.device = "/device:CPU:0";
    }
  }
  REQUIRE(pops > 0);
  Tensor wv = Tensor::FromVector<double>({0.5, -0.3, 0.2, 0.8}, {2, 2});
  Tensor xv = Tensor::FromVector<double>({1.0, -0.5}, {2, 1});
  const std::vector<std::string> fetches = {loss.name(), grads[0].name(), grads[1].name()};
  auto two = test::MakeSession(split, 2, 2);
  auto one = test::SessionFor(root);
  auto got = test::RunOk(two.get(), {{"w:0", wv}, {"x0:0", xv}}, fetches);
  auto want = test::RunOk(one.get(), {{"w:0", wv}, {"x0:0", xv}}, fetches);
  for (size_t i = 0; i < fetches.size(); ++i) test::ExpectClose(got[i], want[i], 1e-12, 1e-14);
}

TEST_CASE("NextIteration and non-constant Enter nodes share their Merge's placement group",
          "[control_flow][placement]") {
  Scope root = Scope::NewRootScope();
  auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
  auto x0 = ops::Placeholder(root.WithOpName("x0"), DataType::kDouble);
  std::vector<NodeOut> grads;
  Looped(root, w, x0, &grads);
  REQUIRE(root.ok());
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  DeviceSet devices{{"/job:localhost/replica:0/task:0/device:CPU:0", "CPU", 0},
                    {"/job:localhost/replica:0/task:0/device:CPU:1", "CPU", 0}};
  auto c = BuildPlacementConstraints(**g, devices);
  REQUIRE(c.ok());
  int checked = 0;
  for (Node* n : (*g)->nodes()) {
    bool is_constant = false;
    (void)GetNodeAttr(n->def().attrs, "is_constant", &is_constant);
    const bool local = n->op() == "NextIteration" || (n->op() == "Enter" && !is_constant);
    if (!local) continue;
    for (const Edge* e : n->out_edges()) {
      if (e->IsControlEdge() || e->dst->op() != "Merge") continue;
      INFO(n->name() << " -> " << e->dst->name());
      CHECK(c->group[static_cast<size_t>(n->id())] == c->group[static_cast<size_t>(e->dst->id())]);
      ++checked;
    }
  }
  CHECK(checked >= 8);  // forward and gradient loops: two loop variables each, Enter and Next
}

TEST_CASE("A loop gradient runs under every placer on two devices", "[control_flow][placement]") {
  Tensor wv = Tensor::FromVector<double>({0.5, -0.3, 0.2, 0.8}, {2, 2});
  Tensor xv = Tensor::FromVector<double>({1.0, -0.5}, {2, 1});
  std::vector<Tensor> want;
  for (const char* placer : {"", "greedy", "round_robin", "random"}) {
    INFO("placer '" << placer << "'");
    Scope root = Scope::NewRootScope();
    auto w = ops::Placeholder(root.WithOpName("w"), DataType::kDouble);
    auto x0 = ops::Placeholder(root.WithOpName("x0"), DataType::kDouble);
    std::vector<NodeOut> grads;
    Output loss = Looped(root, w, x0, &grads);
    SessionOptions opts;
    opts.device_options.num_cpu_devices = std::string(placer).empty() ? 1 : 2;
    opts.device_options.threads_per_cpu = 2;
    opts.placer = placer;
    auto s = Session::Create(opts);
    REQUIRE(s.ok());
    REQUIRE((*s)->Extend(root.ToGraphDef()).ok());
    RunOptions ro;
    ro.timeout_in_ms = 20000;  // a hang fails with the pending _Recv nodes named
    std::vector<Tensor> out;
    Status st = (*s)->Run(ro, {{"w:0", wv}, {"x0:0", xv}},
                          {loss.name(), grads[0].name(), grads[1].name()}, {}, &out, nullptr);
    INFO(st.ToString());
    REQUIRE(st.ok());
    if (want.empty()) want = out;
    for (size_t i = 0; i < out.size(); ++i) test::ExpectClose(out[i], want[i], 1e-12, 1e-14);
  }
}

}  // namespace
}  // namespace fb
