// Data-parallel workloads on the 4-host star (tests: sync vs async, backup workers, stragglers,
// compression); golden times computed by hand in the comments.
#include "sim/workload.h"

#include <set>

#include "engine/placement/placer.h"
#include "experiments/models/model_graph.h"
#include "sim/simulator.h"
#include "tests/sim/sim_test_util.h"

namespace fb::sim {
namespace {

using test::MakeGraph;
using test::PlatformPath;
using test::TableCosts;

// The toy step's costs: g 1 s, the update 0.1 s (on the PS); w, read and g are 1 MB.
SimCosts ToyCosts() {
  return TableCosts({{"g", 1.0}, {"apply", 0.1}}, {{"w", 1000000}, {"read", 1000000}, {"g", 1000000}});
}

StatusOr<SimResult> RunToy(WorkloadOptions w, Simulation* sim) {
  auto g = MakeGraph(test::kToyTrainingStep);
  RETURN_IF_ERROR(sim->LoadPlatform(PlatformPath("star_4.xml")));
  SimRunOptions opts;
  opts.workload = w;
  return sim->Run(*g, ToyCosts(), opts);
}

WorkloadOptions ThreeReplicas(SyncMode mode, int steps) {
  WorkloadOptions w;
  w.replicas = 3;
  w.ps = 1;
  w.mode = mode;
  w.steps = steps;
  return w;
}

TEST_CASE("Sync data parallelism with a parameter server: hand-computed step", "[sim]") {
  Simulation sim;
  auto r = RunToy(ThreeReplicas(SyncMode::kSync, 3), &sim);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // w to 3 workers shares the PS up-link: 3e6 B / 1e8 B/s + 2 ms = 0.032; g: 1 s -> 1.032;
  // 3 gradients share the PS down-link: + 0.032 = 1.064; summing 3 gradients on the PS:
  // 2 * 1e6 B / 1e9 B/s = 0.002; apply 0.1 s: step ends at 1.166.
  REQUIRE(r->step_times_s.size() == 3);
  for (double t : r->step_times_s) CHECK(t == Approx(1.166).epsilon(1e-6));
  CHECK(r->transfers == 3 * (3 + 3 + 3));  // per step: w x3, lr x3, g x3
}

TEST_CASE("Async data parallelism: replicas update independently and share the PS CPU", "[sim]") {
  Simulation sim;
  auto r = RunToy(ThreeReplicas(SyncMode::kAsync, 2), &sim);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  // As sync up to 1.064 (no gather sum); then three 0.1 s applies share the 1-core PS: 1.364.
  REQUIRE(r->step_times_s.size() == 6);  // 3 replicas x 2 steps
  for (double t : r->step_times_s) CHECK(t == Approx(1.364).epsilon(1e-6));
}

TEST_CASE("Stragglers slow sync steps while async and backup workers hide them", "[sim]") {
  auto median = [](SyncMode mode, int backup) {
    WorkloadOptions w = ThreeReplicas(mode, 12);
    w.backup_workers = backup;
    w.straggler_probability = 0.3;
    w.straggler_slowdown = 4;
    w.seed = 7;
    auto r = test::RunSimInChild([&] {
      Simulation sim;
      return RunToy(w, &sim);
    });
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    return r->MedianStepTime();
  };
  const double sync = median(SyncMode::kSync, 0);
  const double backup = median(SyncMode::kSync, 1);
  const double async = median(SyncMode::kAsync, 0);
  // With P = 0.3 most steps have a straggler (1 - 0.7^3 = 0.66): sync waits for its 4 s.
  CHECK(sync > 3.0);
  CHECK(backup < sync);
  CHECK(async < 1.5);  // a replica step is 1.364 s unless it straggles itself (p = 0.3)
}

TEST_CASE("Compression halves the bytes on the wire", "[sim]") {
  SimResult plain, compressed;
  for (bool on : {false, true}) {
    WorkloadOptions w = ThreeReplicas(SyncMode::kSync, 1);
    w.compression = on;
    auto r = test::RunSimInChild([&] {
      Simulation sim;
      return RunToy(w, &sim);
    });
    INFO(r.status().ToString());
    REQUIRE(r.ok());
    (on ? compressed : plain) = *r;
  }
  CHECK(plain.wire_bytes == 6 * 1000000);  // w to 3 workers, g from 3 workers
  CHECK(compressed.wire_bytes == plain.wire_bytes / 2);
  // Conversions cost 1.5 * 1e6 / 1e9 s at both ends of w and g (4 x 1.5 ms), the transfers
  // take half as long (2 x 15 ms saved): 1.166 - 0.030 + 0.006 = 1.142.
  CHECK(compressed.step_times_s[0] == Approx(1.142).epsilon(1e-6));
}

TEST_CASE("The simulator places with the engine's placer", "[sim]") {
  Simulation sim;
  auto r = RunToy(ThreeReplicas(SyncMode::kSync, 1), &sim);
  REQUIRE(r.ok());
  auto g = MakeGraph(test::kToyTrainingStep);
  ConstrainForParameterServers(g.get(), 1);
  REQUIRE(PlaceGraph(g.get(), sim.roles().placement_devices, "").ok());
  for (Node* n : g->nodes())
    CHECK(sim.placed_graph()->FindNode(n->name())->assigned_device() == n->assigned_device());
  CHECK(sim.placed_graph()->FindNode("apply")->assigned_device() ==
        "/job:ps/replica:0/task:0/device:CPU:0");
  CHECK(sim.placed_graph()->FindNode("g")->assigned_device() ==
        "/job:worker/replica:0/task:0/device:CPU:0");
}

TEST_CASE("Parameter servers keep a variable and its optimizer slots together", "[sim]") {
  // MLP trained with Adam: ApplyAdam updates a weight and its two slot variables through ref
  // inputs, and the placer colocates it with all three. Assigning the three round-robin put them
  // on different parameter servers ("conflicting placement constraints" with --ps 2 and more).
  StatusOr<experiments::ModelGraph> m = experiments::BuildModelGraph("mlp", 8);
  REQUIRE(m.ok());
  Graph* g = m->graph.get();
  ConstrainForParameterServers(g, 4);
  std::set<std::string> used;
  int applies = 0;  // ops updating three variables (ApplyAdam)
  for (const Node* n : g->nodes()) {
    std::set<std::string> devices;
    int refs = 0;
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (!n->input_is_ref(i) || !n->input_edge(i)) continue;
      devices.insert(n->input_edge(i)->src->requested_device());
      ++refs;
    }
    if (devices.empty()) continue;
    INFO(n->name());
    CHECK(devices.size() == 1);
    used.insert(*devices.begin());
    applies += refs == 3;
  }
  CHECK(applies > 0);
  CHECK(used.size() == 4);  // the groups still spread over every parameter server
}

TEST_CASE("Workload options are checked", "[sim]") {
  WorkloadOptions w;
  CHECK(ParseSyncMode("backup:2", &w).ok());
  CHECK(w.backup_workers == 2);
  Status bad = ParseSyncMode("bulk", &w);
  CHECK(bad.ToString().find("--mode must be sync, async, allreduce or backup:B") != std::string::npos);
  CHECK(ParseStragglers("0.1:3", &w).ok());
  CHECK(w.straggler_slowdown == 3);
  CHECK(!ParseStragglers("2:3", &w).ok());
  // Values that overflowed: B wrapped to -1 through int, F x a step's time to infinity; both
  // stalled the simulation ("group 0 finished 0 of 1 steps").
  const Status huge_b = ParseSyncMode("backup:99999999999999999999", &w);
  CHECK_THAT(huge_b.message(), Catch::Contains("0 <= B <= 1000000"));
  CHECK(ParseSyncMode("backup:1000000", &w).ok());
  const Status huge_f = ParseStragglers("0.5:1e308", &w);
  CHECK_THAT(huge_f.message(), Catch::Contains("1 <= F <= 1e+06") &&
                                   Catch::Contains("got '0.5:1e308'"));
  CHECK(ParseStragglers("0.5:1e6", &w).ok());
  Simulation sim;
  WorkloadOptions many = ThreeReplicas(SyncMode::kSync, 1);
  many.replicas = 4;
  auto r = RunToy(many, &sim);
  REQUIRE(!r.ok());
  CHECK(r.status().ToString().find("the platform has 4 devices; 1 parameter servers and 4 replicas need 5") !=
        std::string::npos);
}

}  // namespace
}  // namespace fb::sim
