// The executor's overheads in the profile cost model (issue 17): the static hand-off count
// (sim/executor_handoffs.h), the measured per-step, per-node and hand-off costs replacing the
// fitted step correction (sim/profile_cost_model.h, sim/profile_sim_costs.h), their measurement
// (sim/executor_cost_probe.h), and schema-1 profiles, which have none.
#include <cmath>

#include "engine/client/math_ops.h"
#include "engine/client/scope.h"
#include "engine/client/state_ops.h"
#include "sim/executor_cost_probe.h"
#include "sim/executor_handoffs.h"
#include "sim/profile.h"
#include "sim/profile_cost_model.h"
#include "sim/profile_sim_costs.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using Catch::Contains;

std::unique_ptr<Graph> BuildGraph(const Scope& root) {
  auto g = Graph::FromGraphDef(root.ToGraphDef());
  REQUIRE(g.ok());
  return std::move(*g);
}

bool NameStartsWith(const Node& n, const std::string& prefix) {
  return n.name().rfind(prefix, 0) == 0;
}

// x [batch, 5] -> mm = x w and mm2 = x w, both ready when the last of x and w completes.
std::unique_ptr<Graph> TwoMatMuls() {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({-1, 5}));
  auto w = ops::Const(root.WithOpName("w"), Tensor(DataType::kFloat, {5, 10}));
  ops::MatMul(root.WithOpName("mm"), x, w);
  ops::MatMul(root.WithOpName("mm2"), x, w);
  return BuildGraph(root);
}

// TwoMatMuls at batch 4 simulated with the profile at `path`: the cost model and the MatMuls'
// times in ns, the shorter first (one of them is handed off).
struct SimulatedMatMuls {
  std::unique_ptr<Graph> g;
  CostModelHandle h;
  double inline_ns = 0, handed_off_ns = 0;
};
SimulatedMatMuls SimulateTwoMatMuls(const std::string& path) {
  SimulatedMatMuls s{TwoMatMuls(), {}};
  auto h = MakeProfileSimCosts(*s.g, {{"x", TensorShape({4, 5})}}, "profile:" + path);
  INFO(h.status().ToString());
  REQUIRE(h.ok());
  s.h = std::move(*h);
  const double a = s.h.costs.compute_s(*s.g->FindNode("mm"), DeviceDesc{}) * 1e9;
  const double b = s.h.costs.compute_s(*s.g->FindNode("mm2"), DeviceDesc{}) * 1e9;
  s.inline_ns = std::min(a, b);
  s.handed_off_ns = std::max(a, b);
  return s;
}

TEST_CASE("Hand-offs: the expensive nodes one completion makes ready beyond the first",
          "[sim][profile][executor_overheads]") {
  // x -> big_a, big_b, cheap_c (ready together when x completes); big_a + big_b -> big_join
  // (ready when big_b, its last input, completes).
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape({4}));
  auto a = ops::Neg(root.WithOpName("big_a"), x);
  auto b = ops::Neg(root.WithOpName("big_b"), x);
  ops::Neg(root.WithOpName("cheap_c"), x);
  ops::Add(root.WithOpName("big_join"), a, b);
  auto g = BuildGraph(root);
  auto expensive = [](const Node& n) { return NameStartsWith(n, "big"); };
  auto h = HandedOffNodes(*g, expensive);
  REQUIRE(h.ok());
  CHECK(*h == std::set<std::string>{"big_b"});  // big_a stays, cheap_c is cheap
  // Nothing expensive: no hand-off.
  auto none = HandedOffNodes(*g, [](const Node&) { return false; });
  REQUIRE(none.ok());
  CHECK(none->empty());
  // Three expensive roots, ready at the step's start: two are handed off.
  Scope r2 = Scope::NewRootScope();
  for (const char* name : {"big_1", "big_2", "big_3"})
    ops::Placeholder(r2.WithOpName(name), DataType::kFloat, TensorShape({4}));
  auto roots = HandedOffNodes(*BuildGraph(r2), expensive);
  REQUIRE(roots.ok());
  CHECK(roots->size() == 2);
  CHECK(roots->count("big_1") == 0);
}

// One MatMul point per batch and a step row per configuration; the executor row has measured
// costs: 4000 ns per step, 100 per node, 2000 per hand-off.
Profile MeasuredProfile() {
  Profile p;
  p.points = {{"m", "mm", "MatMul", 1, 1, 100, 800, 1000, 10},
              {"m", "mm", "MatMul", 4, 1, 400, 2000, 3000, 10}};
  ProfileExecutor e;
  e.threads = 1;
  e.per_step_ns = 300, e.per_node_inline_ns = 50;
  e.has_step_costs = true;
  e.run_ns = 4000, e.node_gap_ns = 100, e.handoff_ns = 2000;
  p.executor = {e};
  return p;
}

TEST_CASE("Measured executor overheads replace the fitted step correction",
          "[sim][profile][executor_overheads]") {
  Profile p = MeasuredProfile();
  // Steps of 10 nodes with 1 hand-off: structure 4000 + 10 * 100 + 2000 = 7000 ns over the
  // kernels. Residuals left: +500 and +9000 ns (noise of the profile's steps): not added.
  p.steps = {{"m", 1, 1, 1000 + 7000 + 500, 0, 1000, 20, 0, 10, 1},
             {"m", 4, 1, 3000 + 7000 + 9000, 0, 3000, 20, 0, 10, 1}};
  auto m = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(m.ok());
  CHECK(m->uses_step_costs());
  const ProfileCostModel::StepCorrection c = m->Correction("m");
  CHECK(c.step_overhead_ns == 0);
  CHECK(c.node_time_factor == 0);
  CHECK(m->StepFixedNs(c) == Approx(4000));
  CHECK(m->NodeOverheadNs(false) == Approx(100));
  CHECK(m->NodeOverheadNs(true) == Approx(2100));
  // Without them (step-costs=off): schema 1's costs and the smallest residual, 7500 ns.
  auto off = ProfileCostModel::Create(p, 1, "p.h5", /*use_step_costs=*/false);
  REQUIRE(off.ok());
  CHECK_FALSE(off->uses_step_costs());
  const ProfileCostModel::StepCorrection c_off = off->Correction("m");
  CHECK(c_off.step_overhead_ns == Approx(7500));
  CHECK(off->StepFixedNs(c_off) == Approx(300 + 7500));
  CHECK(off->NodeOverheadNs(true) == Approx(50));
  // Steps shorter than their kernels plus the overheads: on one thread kernels cannot overlap,
  // so it is the tracing's cost per node c, r = -c * 10 for residuals -100 and -50 ns over node
  // sums 1000 and 3000 ns, least squares weighted by 1 / node_sum^2:
  // c = (100 * 10 / 1000^2 + 50 * 10 / 3000^2) / (10^2 / 1000^2 + 10^2 / 3000^2) = 9.5 ns.
  p.steps[0].median_step_ns = 1000 + 7000 - 100;
  p.steps[1].median_step_ns = 3000 + 7000 - 50;
  auto traced = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(traced.ok());
  CHECK(traced->Correction("m").node_trace_ns == Approx(9.5));
  CHECK(traced->Correction("m").node_time_factor == 0);
  CHECK(traced->Correction("m").step_overhead_ns == 0);
  // A step row without a node count (schema 1) keeps the share of node time: -10%.
  p.steps[1].nodes = 0;
  auto schema1 = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(schema1.ok());
  CHECK(schema1->Correction("m").node_time_factor == Approx(-0.1));
  CHECK(schema1->Correction("m").node_trace_ns == 0);
}

TEST_CASE("A dip in the largest configuration's kernels is not taken for a tracing cost",
          "[sim][profile][executor_overheads]") {
  // The hold-out of 2026-11-27 04:40 UTC, LeNet on one thread, residuals after the overheads:
  // batch 16 +75 us over 1.5 ms of kernels, batch 256 -800 us over 21.9 ms (a 4% dip), 160
  // nodes each. The largest deficit per node (5 us) would take 0.8 ms off a 1.5 ms step; the
  // weighted fit, 75000 * 160 / 1.5e6^2 - 800000 * 160 / 21.9e6^2 > 0, leaves no tracing cost.
  Profile p = MeasuredProfile();
  const double overheads = 4000 + 160 * 100 + 2000;
  p.steps = {{"m", 16, 1, 1.5e6 + overheads + 75000, 0, 1.5e6, 20, 0, 160, 1},
             {"m", 256, 1, 21.9e6 + overheads - 800000, 0, 21.9e6, 20, 0, 160, 1}};
  auto m = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(m.ok());
  CHECK(m->Correction("m").node_trace_ns == 0);
  CHECK(m->Correction("m").node_time_factor == 0);
  CHECK(m->Correction("m").step_overhead_ns == 0);
  // The same 5 us per node at both sizes is a tracing cost, and the fit recovers it.
  p.steps[0].median_step_ns = 1.5e6 + overheads - 160 * 5000;
  p.steps[1].median_step_ns = 21.9e6 + overheads - 160 * 5000;
  auto consistent = ProfileCostModel::Create(p, 1, "p.h5");
  REQUIRE(consistent.ok());
  CHECK(consistent->Correction("m").node_trace_ns == Approx(5000));
}

TEST_CASE("One-thread tracing cost comes off each simulated node, not a share of the step",
          "[sim][profile][executor_overheads]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  Profile p = MeasuredProfile();
  p.points.push_back({"m", "mm2", "MatMul", 4, 1, 400, 2000, 3000, 10});
  // 200 ns shorter than its traced kernels and overheads over 10 nodes at batch 1 (20 ns per
  // node; as a share, -20% of its 1000 ns of kernels), 200 ns again at batch 4 (-7%).
  p.steps = {{"m", 1, 1, 1000 + 7000 - 200, 0, 1000, 20, 0, 10, 1},
             {"m", 4, 1, 3000 + 7000 - 200, 0, 3000, 20, 0, 10, 1}};
  REQUIRE(WriteProfile(path, p).ok());
  // Batch 4: two profiled MatMuls of 3000 ns lose 20 ns each (a -20% share would leave 2400).
  const SimulatedMatMuls sim = SimulateTwoMatMuls(path);
  CHECK(sim.inline_ns == Approx(2980 + 100));
  CHECK(sim.handed_off_ns == Approx(2980 + 100 + 2000));
  CHECK_THAT(sim.h.description, Contains("- 0.02 us per node (tracing)"));
}

TEST_CASE("Profile cost model adds the measured overheads to a simulated graph",
          "[sim][profile][executor_overheads]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  Profile p = MeasuredProfile();
  p.points.push_back({"m", "mm2", "MatMul", 1, 1, 100, 800, 1000, 10});
  p.steps = {{"m", 1, 1, 1000 + 7000, 0, 1000, 20, 0, 10, 1}};
  REQUIRE(WriteProfile(path, p).ok());
  // Batch 4: 400 FLOPs each, 3000 ns at the profiled point (above 2 us: expensive), so one of
  // them is handed off.
  const SimulatedMatMuls sim = SimulateTwoMatMuls(path);
  const Graph* g = sim.g.get();
  CHECK(sim.inline_ns == Approx(3000 + 100));
  CHECK(sim.handed_off_ns == Approx(3000 + 100 + 2000));
  CHECK(sim.h.costs.dispatch_s("any") == Approx(4000e-9));
  CHECK_THAT(sim.h.description,
             Contains("executor overheads measured") && Contains("1 nodes handed off"));
  // step-costs=off, in either order with threads=.
  auto off = MakeProfileSimCosts(*g, {{"x", TensorShape({4, 5})}},
                                 "profile:" + path + ",step-costs=off,threads=1");
  REQUIRE(off.ok());
  CHECK(off->costs.compute_s(*g->FindNode("mm2"), DeviceDesc{}) * 1e9 == Approx(3000 + 50));
  CHECK(off->costs.dispatch_s("any") == Approx((300 + 7000) * 1e-9));  // the residual fitted
  auto bad = MakeProfileSimCosts(*g, {}, "profile:" + path + ",step-costs=maybe");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Contains("step-costs must be on or off, got 'maybe'"));
}

TEST_CASE("Profile round trip keeps the executor overheads",
          "[sim][profile][executor_overheads]") {
  fb::test::TempDir dir;
  const std::string path = dir.file("host.h5");
  Profile p = MeasuredProfile();
  p.steps = {{"m", 1, 1, 9000, 9100, 1000, 20, 0.5, 10, 3}};
  ProfileExecutor unmeasured;  // has_step_costs false, as read from a schema-1 profile
  unmeasured.threads = 2;
  p.executor.push_back(unmeasured);
  REQUIRE(WriteProfile(path, p).ok());
  auto r = ReadProfile(path);
  REQUIRE(r.ok());
  CHECK(r->schema_version == kProfileSchemaVersion);
  REQUIRE(r->executor.size() == 2);
  CHECK(r->executor[0].has_step_costs);
  CHECK(r->executor[0].run_ns == 4000);
  CHECK(r->executor[0].node_gap_ns == 100);
  CHECK(r->executor[0].handoff_ns == 2000);
  CHECK_FALSE(r->executor[1].has_step_costs);
  REQUIRE(r->steps.size() == 1);
  CHECK(r->steps[0].nodes == 10);
  CHECK(r->steps[0].handoffs == 3);
}

TEST_CASE("A schema-1 profile still loads and uses the fitted step correction",
          "[sim][profile][executor_overheads]") {
  // Written by `flowbench profile --models mlp --batch-sizes 2 --threads 1 --steps 3
  // --trace-steps 2 --warmup-steps 1` before schema 2 (commit 29c8b42).
  const std::string path = std::string(FB_SOURCE_DIR) + "/tests/data/profile_schema1.h5";
  auto r = ReadProfile(path);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->schema_version == 1);
  REQUIRE(r->executor.size() == 1);
  CHECK_FALSE(r->executor[0].has_step_costs);
  CHECK(r->executor[0].per_step_ns > 0);
  CHECK(r->executor[0].run_ns == 0);
  REQUIRE(r->steps.size() == 1);
  CHECK(r->steps[0].model == "mlp");
  CHECK(r->steps[0].batch == 2);
  CHECK(r->steps[0].median_step_ns > 0);
  CHECK(r->steps[0].nodes == 0);
  CHECK(r->points.size() == 86);
  auto m = ProfileCostModel::Create(*r, 1, path);
  REQUIRE(m.ok());
  CHECK_FALSE(m->uses_step_costs());
  const ProfileCostModel::StepCorrection c = m->Correction("mlp");
  CHECK(c.step_overhead_ns == Approx(r->steps[0].median_step_ns - r->steps[0].node_sum_ns));
  CHECK(m->StepFixedNs(c) == Approx(r->executor[0].per_step_ns + c.step_overhead_ns));
  // Rewritten, it becomes a current-schema file without measured overheads.
  fb::test::TempDir dir;
  REQUIRE(WriteProfile(dir.file("v2.h5"), *r).ok());
  auto again = ReadProfile(dir.file("v2.h5"));
  REQUIRE(again.ok());
  CHECK(again->schema_version == kProfileSchemaVersion);
  CHECK_FALSE(again->executor[0].has_step_costs);
}

TEST_CASE("A profile of a later schema is refused naming the file and the versions read",
          "[sim][profile][executor_overheads]") {
  const std::string path = std::string(FB_SOURCE_DIR) + "/tests/data/bad/profile_version_99.h5";
  auto r = ReadProfile(path);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Contains("profile_version_99.h5") &&
                                       Contains("schema_version is 99") &&
                                       Contains("reads versions 1 to 5"));
}

TEST_CASE("Executor overheads are measured on small graphs", "[sim][profile][executor_overheads]") {
  auto e = MeasureExecutorCosts(1, 20);
  INFO(e.status().ToString());
  REQUIRE(e.ok());
  CHECK(e->threads == 1);
  CHECK(e->has_step_costs);
  for (double v : {e->per_step_ns, e->run_ns, e->node_gap_ns, e->handoff_ns}) {
    CHECK(std::isfinite(v));
    CHECK(v >= 0);
    CHECK(v < 1e8);  // under 0.1 s even on a loaded machine
  }
  CHECK(e->per_step_ns > 0);
  auto bad = MeasureExecutorCosts(0, 20);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Contains("threads and runs must be >= 1"));
}

}  // namespace
}  // namespace fb::sim
