#include "engine/partition/partition.h"

#include <set>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/device_name.h"
#include "engine/framework/rendezvous.h"
#include "tests/test_util.h"

namespace fb {
namespace {

const std::string kCpu0 = LocalDeviceName("CPU", 0);
const std::string kCpu1 = LocalDeviceName("CPU", 1);

void Assign(Graph* g, const std::map<std::string, std::string>& devices) {
  for (Node* n : g->nodes()) {
    auto it = devices.find(n->name());
    n->set_assigned_device(it == devices.end() ? kCpu0 : it->second);
  }
}

int CountOp(const GraphDef& g, const std::string& op) {
  int n = 0;
  for (const NodeDef& d : g.nodes) n += d.op == op;
  return n;
}

const NodeDef* Find(const GraphDef& g, const std::string& name) {
  for (const NodeDef& d : g.nodes)
    if (d.name == name) return &d;
  return nullptr;
}

TEST_CASE("Figure 4: consumers of one tensor on one device share a single Recv",
          "[partition]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a"), 2.f);
  ops::Neg(root.WithOpName("b"), a);
  ops::Square(root.WithOpName("c"), a);
  REQUIRE(root.ok());
  Assign(root.graph(), {{"b", kCpu1}, {"c", kCpu1}});
  std::map<std::string, GraphDef> parts;
  PartitionStats stats;
  REQUIRE(Partition(*root.graph(), &parts, &stats).ok());
  REQUIRE(parts.size() == 2);
  CHECK(stats.num_send_recv_pairs == 1);
  CHECK(CountOp(parts[kCpu0], "_Send") == 1);
  CHECK(CountOp(parts[kCpu1], "_Recv") == 1);
  const NodeDef* b = Find(parts[kCpu1], "b");
  const NodeDef* c = Find(parts[kCpu1], "c");
  REQUIRE(b);
  REQUIRE(c);
  CHECK(b->inputs[0] == c->inputs[0]);  // the one Recv
  CHECK(Find(parts[kCpu1], b->inputs[0])->op == "_Recv");
  for (const NodeDef& d : parts[kCpu1].nodes) CHECK(d.device == kCpu1);
}

TEST_CASE("Figure 4 through a Session on two devices: one pair, right values", "[partition]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a").WithDevice("/device:CPU:0"), 3.f);
  ops::Neg(root.WithOpName("b").WithDevice("/device:CPU:1"), a);
  ops::Square(root.WithOpName("c").WithDevice("/device:CPU:1"), a);
  REQUIRE(root.ok());
  SessionOptions opts;
  opts.device_options.num_cpu_devices = 2;
  opts.device_options.threads_per_cpu = 1;
  opts.default_passes = false;  // constant folding would compute b and c on CPU:1 at build time
  auto created = Session::Create(opts);
  REQUIRE(created.ok());
  auto s = std::move(*created);
  REQUIRE(s->Extend(root.ToGraphDef()).ok());
  RunMetadata md;
  std::vector<Tensor> out;
  REQUIRE(s->Run(RunOptions(), {}, {"b:0", "c:0"}, {}, &out, &md).ok());
  CHECK(out[0].scalar<float>() == -3.f);
  CHECK(out[1].scalar<float>() == 9.f);
  // a -> CPU:1 once for both b and c; b and c back to their _Fetch nodes on CPU:0.
  CHECK(md.num_send_recv_pairs == 3);
  CHECK(md.bytes_transferred == 12);
}

// Whitepaper Figure 5 with the nodes spread over two devices: fetching f with b fed runs d, e, f
// and the transfers between them, never a or c.
TEST_CASE("Figure 5 after partitioning: only the needed nodes and their transfers run",
          "[partition]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a").WithDevice("/device:CPU:0"), 1.f);
  auto b = ops::Identity(root.WithOpName("b").WithDevice("/device:CPU:0"), a);
  ops::Identity(root.WithOpName("c").WithDevice("/device:CPU:1"), b);
  auto d = ops::Neg(root.WithOpName("d").WithDevice("/device:CPU:1"), b);
  auto e = ops::Square(root.WithOpName("e").WithDevice("/device:CPU:0"), d);
  ops::Neg(root.WithOpName("f").WithDevice("/device:CPU:1"), e);
  REQUIRE(root.ok());
  auto s = test::MakeSession(root.ToGraphDef(), 2, 1);
  RunOptions opts;
  opts.trace = true;
  RunMetadata md;
  std::vector<Tensor> out;
  REQUIRE(s->Run(opts, {{"b:0", Tensor::Scalar<float>(5.f)}}, {"f:0"}, {}, &out, &md).ok());
  CHECK(out[0].scalar<float>() == -25.f);
  std::set<std::string> ran;
  int sends = 0, recvs = 0;
  for (const NodeExecStats& st : md.step_stats) {
    ran.insert(st.node_name);
    sends += st.op == "_Send";
    recvs += st.op == "_Recv";
    if (st.op == "_Send" || st.op == "_Recv") {
      CHECK(st.transfer_bytes == 4);
      CHECK((st.peer_device == kCpu0 || st.peer_device == kCpu1));
      CHECK(st.peer_device != st.device);
    }
  }
  for (const char* n : {"d", "e", "f"}) CHECK(ran.count(n));
  for (const char* n : {"a", "b", "c"}) CHECK_FALSE(ran.count(n));
  // b (fed, on CPU:0) -> d (CPU:1) -> e (CPU:0) -> f (CPU:1), then f's value to the fetch
  // on CPU:0 (where _Fetch nodes live): four transfers.
  CHECK(sends == recvs);
  CHECK(md.num_send_recv_pairs == sends);
  CHECK(sends >= 3);
}

TEST_CASE("Control edges across devices become a dummy transfer", "[partition]") {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root.WithOpName("x"), 1.f);
  auto y = ops::Const(root.WithOpName("y"), 2.f);
  REQUIRE(root.ok());
  root.graph()->AddControlEdge(x.node(), y.node());
  Assign(root.graph(), {{"y", kCpu1}});
  std::map<std::string, GraphDef> parts;
  PartitionStats stats;
  REQUIRE(Partition(*root.graph(), &parts, &stats).ok());
  CHECK(stats.num_control_transfers == 1);
  CHECK(stats.num_send_recv_pairs == 0);
  const NodeDef* yd = Find(parts[kCpu1], "y");
  REQUIRE(yd);
  REQUIRE(yd->inputs.size() == 1);
  REQUIRE(yd->inputs[0][0] == '^');
  CHECK(Find(parts[kCpu1], yd->inputs[0].substr(1))->op == "_Recv");
}

TEST_CASE("Recv gates from the alap_recv attr become control inputs of the Recv",
          "[partition]") {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a"), 2.f);
  ops::Const(root.WithOpName("gate"), 0.f);
  ops::Neg(root.WithOpName("b"), a);
  REQUIRE(root.ok());
  a.node()->mutable_def()->attrs[kRecvGatesAttr] =
      std::vector<std::string>{"0;" + kCpu1 + ";gate"};
  Assign(root.graph(), {{"b", kCpu1}, {"gate", kCpu1}});
  REQUIRE(RecvGates(*a.node()).size() == 1);
  std::map<std::string, GraphDef> parts;
  REQUIRE(Partition(*root.graph(), &parts).ok());
  const NodeDef* b = Find(parts[kCpu1], "b");
  const NodeDef* recv = Find(parts[kCpu1], b->inputs[0]);
  REQUIRE(recv);
  CHECK(std::find(recv->inputs.begin(), recv->inputs.end(), "^gate") != recv->inputs.end());
}

TEST_CASE("Rendezvous keys carry frame and iteration", "[partition][rendezvous]") {
  Rendezvous::ParsedKey k1{kCpu0, kCpu1, "a:0", {0, 0}};
  Rendezvous::ParsedKey k2{kCpu0, kCpu1, "a:0", {0, 1}};
  Rendezvous::ParsedKey k3{kCpu0, kCpu1, "a:0", {2, 0}};
  CHECK(k1.FullKey() != k2.FullKey());
  CHECK(k1.FullKey() != k3.FullKey());
  CHECK(k2.FullKey() != k3.FullKey());
}

}  // namespace
}  // namespace fb
