#include "engine/passes/alap_recv.h"

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"
#include "engine/framework/device_name.h"
#include "engine/placement/cost_model.h"
#include "engine/placement/device_config.h"
#include "engine/placement/step_prediction.h"
#include "tests/test_util.h"

namespace fb {
namespace {

constexpr int kSteps = 8;
constexpr int64_t kElems = 1 << 18;  // 1 MiB of float32

// CPU:0 offers kSteps 1 MiB tensors x_i at once (each received into a copy on CPU:1); CPU:1 folds them into a slow chain
// c_i = tanh^4(c_{i-1}) + x_i. Received as soon as possible, all x_i sit on CPU:1 together;
// received just before they are needed, about one at a time.
GraphDef ChainGraph() {
  Scope root = Scope::NewRootScope();
  Scope d0 = root.WithDevice("/device:CPU:0"), d1 = root.WithDevice("/device:CPU:1");
  auto base = ops::Const(d0.WithOpName("base"), std::vector<float>(kElems, 0.5f),
                         TensorShape({kElems}));
  auto c = ops::Const(d1.WithOpName("c0"), std::vector<float>(kElems, 0.f), TensorShape({kElems}));
  for (int i = 1; i <= kSteps; ++i) {
    std::string s = std::to_string(i);
    auto x = ops::Identity(d0.WithOpName("x" + s), base);  // ready at once; each Recv copies
    Output t = c;
    for (const char* k : {"t", "u", "v", "w"}) t = ops::Tanh(d1.WithOpName(k + s), t);
    c = ops::Add(d1.WithOpName("c" + s), t, x);
  }
  REQUIRE(root.ok());
  return root.ToGraphDef();
}

struct Result {
  std::vector<float> value;
  int64_t peak_cpu1 = 0;
  std::vector<std::string> reports;
};

Result RunChain(const std::vector<std::string>& passes) {
  SessionOptions opts;
  opts.device_options.num_cpu_devices = 2;
  opts.device_options.threads_per_cpu = 1;
  opts.passes = passes;
  opts.default_passes = false;  // the pass under test alone
  auto s = Session::Create(opts);
  REQUIRE((*s)->Extend(ChainGraph()).ok());
  Result r;
  for (int step = 0; step < 2; ++step) {  // the second step has warm allocators
    RunMetadata md;
    std::vector<Tensor> out;
    Status st = (*s)->Run(RunOptions(), {}, {"c" + std::to_string(kSteps) + ":0"}, {}, &out, &md);
    INFO(st.ToString());
    REQUIRE(st.ok());
    r.value = test::Values<float>(out[0]);
    r.peak_cpu1 = md.peak_bytes[LocalDeviceName("CPU", 1)];
    r.reports = md.pass_reports;
  }
  return r;
}

TEST_CASE("ALAP Recv scheduling lowers the receiving device's peak memory (5.2)",
          "[passes][alap_recv]") {
  // Predicted by the cost model (step_prediction.h): the executor of one device thread happens
  // to start Recvs late on its own, so the real peak does not show the difference reliably.
  auto g = Graph::FromGraphDef(ChainGraph());
  REQUIRE(g.ok());
  DeviceSet devs = LocalDevices("CPU", 2);
  for (Node* n : (*g)->nodes())
    n->set_assigned_device(n->requested_device() == "/device:CPU:1" ? devs[1].name : devs[0].name);
  auto before = CostModel::Create(**g, devs);
  REQUIRE(before.ok());
  Placement p;
  p.device.assign((*g)->num_node_ids(), -1);
  for (Node* n : (*g)->nodes()) p.device[n->id()] = before->DeviceIndex(n->assigned_device());
  auto asap = PredictStep(**g, *before, p);
  REQUIRE(asap.ok());
  auto report = ScheduleRecvsAlap(g->get(), *before);
  REQUIRE(report.ok());
  CHECK(report->num_changes == kSteps);
  CHECK_THAT(report->changes.back(), Catch::Contains("'x8:0'") && Catch::Contains("after '"));
  auto alap = PredictStep(**g, *before, p);
  REQUIRE(alap.ok());
  INFO("peak on CPU:1, ASAP " << asap->peak_bytes[1] << " bytes, ALAP " << alap->peak_bytes[1]);
  // ASAP: all eight received MiB at once plus the chain's; ALAP: about one of them.
  CHECK(asap->peak_bytes[1] >= (kSteps + 1) * kElems * 4);
  CHECK(alap->peak_bytes[1] <= asap->peak_bytes[1] - 5 * kElems * 4);
  CHECK(alap->step_ns <= asap->step_ns * 1.01);  // and the step is not slower
}

TEST_CASE("ALAP Recv scheduling in a Session: same results, gated Recvs",
          "[passes][alap_recv]") {
  Result asap = RunChain({});
  Result alap = RunChain({"alap_recv"});
  CHECK(alap.value == asap.value);
  REQUIRE(alap.reports.size() == 1);
  // x1..x8 to CPU:1, and c8 back to the _Fetch on CPU:0.
  CHECK_THAT(alap.reports[0], Catch::StartsWith("alap_recv: 9 changes") && Catch::Contains("'x8:0'"));
}

TEST_CASE("ALAP gates never depend on the tensor they hold back", "[passes][alap_recv]") {
  // y on CPU:1 depends on a's transfer; the only other CPU:1 node, z, depends on a too, so no
  // gate qualifies for a.
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root.WithOpName("a").WithDevice("/device:CPU:0"), 1.f);
  auto y = ops::Neg(root.WithOpName("y").WithDevice("/device:CPU:1"), a);
  ops::Neg(root.WithOpName("z").WithDevice("/device:CPU:1"), y);
  REQUIRE(root.ok());
  DeviceSet devs = LocalDevices("CPU", 2);
  for (Node* n : root.graph()->nodes())
    n->set_assigned_device(n->requested_device() == "/device:CPU:1" ? devs[1].name : devs[0].name);
  auto cost = CostModel::Create(*root.graph(), devs);
  REQUIRE(cost.ok());
  auto r = ScheduleRecvsAlap(root.graph(), *cost);
  REQUIRE(r.ok());
  CHECK(r->num_changes == 0);
  CHECK(RecvGates(*a.node()).empty());
}

}  // namespace
}  // namespace fb
