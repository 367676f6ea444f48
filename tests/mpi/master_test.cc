// The master and workers under mpirun (whitepaper 3.2.2, 3.3): remote devices in placement, one
// run per worker per step, abort of the whole step on any error, health checks. Every rank runs
// each TEST_CASE: rank 0 is the client and master, the others serve until the master shuts down.
#include "mpi/master.h"

#include <catch2/catch.hpp>
#include <map>

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "mpi/mpi_status.h"
#include "mpi/worker_service.h"
#include "tests/test_util.h"

namespace fb::mpi {
namespace {

std::string WorkerDevice(int task) { return "/job:worker/task:" + std::to_string(task); }

// y = sum over tasks t of x * (t + 1), each product computed on task t: every rank sends to
// task 0, which adds.
GraphDef FanInGraph(int num_tasks) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape{3});
  std::vector<Output> parts;
  for (int t = 0; t < num_tasks; ++t) {
    Scope s = root.WithDevice(WorkerDevice(t));
    parts.push_back(ops::Mul(s.WithOpName("scaled_" + std::to_string(t)), x,
                             ops::Const(s, static_cast<float>(t + 1))));
  }
  ops::AddN(root.WithOpName("y").WithDevice(WorkerDevice(0)), parts);
  REQUIRE(root.ok());
  return root.ToGraphDef();
}

// Rank 0: a master holding FanInGraph; every other rank serves until it shuts down (null).
std::unique_ptr<Master> FanInMaster(const ClusterSpec& cluster, const MasterOptions& options = {}) {
  if (WorldRank() != 0) {
    REQUIRE(ServeWorker(cluster, {}).ok());
    return nullptr;
  }
  auto master = Master::Create(cluster, options);
  REQUIRE(master.ok());
  REQUIRE((*master)->Extend(FanInGraph(WorldSize())).ok());
  return std::move(*master);
}

TEST_CASE("Master places over every rank's devices and runs steps across ranks", "[mpi][master]") {
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  std::unique_ptr<Master> master = FanInMaster(cluster);
  if (!master) return;
  REQUIRE(master->devices().size() == static_cast<size_t>(WorldSize()));
  for (int r = 0; r < WorldSize(); ++r)
    CHECK(master->devices()[r].name == cluster.DeviceName(r));
  int n = WorldSize();
  float scale = n * (n + 1) / 2.f;  // sum of t + 1: hand computation
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    Tensor x = Tensor::FromVector<float>({1.f, -2.f, static_cast<float>(step)}, TensorShape{3});
    Status s = master->Run({{"x", x}}, {"y"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    CHECK(test::Values<float>(out[0]) == std::vector<float>{scale, -2 * scale, step * scale});
  }
  CHECK(master->CheckHealth().ok());
  CHECK_THAT(master->Run({}, {"nope"}, {}, nullptr).message(), Catch::Contains("nope"));
  master->Shutdown();
}

TEST_CASE("Steps run the same with the client thread sleeping instead of driving progress",
          "[mpi][master]") {
  MasterOptions options;
  options.drive_progress = false;
  std::unique_ptr<Master> master = FanInMaster(ClusterSpec::AllWorkers(WorldSize()), options);
  if (!master) return;
  int n = WorldSize();
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    Status s = master->Run({{"x", Tensor::FromVector<float>({1.f, 2.f, 3.f}, TensorShape{3})}}, {"y"}, {}, &out);
    INFO(s.ToString());
    REQUIRE(s.ok());
    float scale = n * (n + 1) / 2.f;
    CHECK(test::Values<float>(out[0]) == std::vector<float>{scale, 2 * scale, 3 * scale});
  }
  master->Shutdown();
}

TEST_CASE("A traced distributed step returns every rank's node executions", "[mpi][master][trace]") {
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  std::unique_ptr<Master> master = FanInMaster(cluster);
  if (!master) return;
  Tensor x = Tensor::FromVector<float>({1.f, 2.f, 3.f}, TensorShape{3});
  std::vector<Tensor> out;
  RunOptions traced;
  traced.trace = true;
  RunMetadata md;
  const int64_t before = NowNs();
  REQUIRE(master->Run(traced, {{"x", x}}, {"y"}, {}, &out, &md).ok());
  const int64_t after = NowNs();
  // Every task t ran "scaled_<t>" on its own rank; the Recvs of task 0 name their peers.
  std::map<std::string, NodeExecStats> by_node;
  for (const NodeExecStats& s : md.step_stats) by_node[s.node_name] = s;
  for (int t = 0; t < WorldSize(); ++t) {
    auto it = by_node.find("scaled_" + std::to_string(t));
    REQUIRE(it != by_node.end());
    CHECK(it->second.rank == t);
    CHECK(it->second.op == "Mul");
    CHECK(it->second.device == cluster.DeviceName(t));
    CHECK(it->second.start_ns >= before);  // one machine: every rank's clock is the same
    CHECK(it->second.end_ns <= after);
    CHECK(it->second.output_bytes == 12);
  }
  int remote_sends = 0;
  for (const NodeExecStats& s : md.step_stats) {
    if (s.op != "_Send" || s.rank == 0) continue;
    ++remote_sends;
    CHECK(s.transfer_bytes == 12);
  }
  CHECK(remote_sends == WorldSize() - 1);
  // The graph such a step runs: feeds and fetches on rank 0, the rest as requested.
  auto exec = master->ExecutionGraph({"x"}, {"y"}, {});
  REQUIRE(exec.ok());
  int feeds = 0, fetches = 0;
  for (Node* n : (*exec)->nodes()) {
    if (n->op() != "_Feed" && n->op() != "_Fetch") continue;
    ++(n->op() == "_Feed" ? feeds : fetches);
    CHECK(n->requested_device() == cluster.DeviceName(0));
  }
  CHECK(feeds == 1);
  CHECK(fetches == 1);
  CHECK((*exec)->FindNode("scaled_" + std::to_string(WorldSize() - 1)) != nullptr);
  CHECK_THAT(master->ExecutionGraph({"nope"}, {}, {}).status().message(), Catch::Contains("nope"));
  // Untraced steps carry no stats.
  RunMetadata plain;
  REQUIRE(master->Run(RunOptions(), {{"x", x}}, {"y"}, {}, &out, &plain).ok());
  CHECK(plain.step_stats.empty());
  master->Shutdown();
}

TEST_CASE("A failing node on a worker aborts the step on every rank and names task and node",
          "[mpi][master]") {
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  if (WorldRank() != 0) {
    REQUIRE(ServeWorker(cluster, {}).ok());
    return;
  }
  int last = WorldSize() - 1;
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat, TensorShape{2});
  auto checked = ops::CheckNumerics(root.WithOpName("check").WithDevice(WorkerDevice(last)), x, "x");
  // Task 0 waits for the checked value: without the abort it would wait forever.
  ops::Identity(root.WithOpName("out").WithDevice(WorkerDevice(0)), ops::Square(root.WithDevice(WorkerDevice(0)), checked));
  auto master = Master::Create(cluster);
  REQUIRE(master.ok());
  REQUIRE((*master)->Extend(root.ToGraphDef()).ok());
  std::vector<Tensor> out;
  Tensor good = Tensor::FromVector<float>({1.f, 2.f}, TensorShape{2});
  REQUIRE((*master)->Run({{"x", good}}, {"out"}, {}, &out).ok());
  CHECK(test::Values<float>(out[0]) == std::vector<float>{1.f, 4.f});
  Tensor bad = Tensor::FromVector<float>({1.f, std::nanf("")}, TensorShape{2});
  Status s = (*master)->Run({{"x", bad}}, {"out"}, {}, &out);
  CHECK_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("/job:worker/replica:0/task:" + std::to_string(last)));
  CHECK_THAT(s.message(), Catch::Contains("check"));
  // The cluster is usable again after an aborted step.
  REQUIRE((*master)->Run({{"x", good}}, {"out"}, {}, &out).ok());
  (*master)->Shutdown();
}

TEST_CASE("Health checks declare an unresponsive worker and abort its step", "[mpi][master]") {
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  int last = WorldSize() - 1;
  if (WorldRank() != 0) {
    WorkerOptions o;
    if (WorldRank() == last) o.hang_at_run = 1, o.hang_ms = 1500;
    REQUIRE(ServeWorker(cluster, o).ok());
    return;
  }
  MasterOptions mo;
  mo.health_check_interval_ms = 50;
  mo.unresponsive_timeout_ms = 300;
  auto master = Master::Create(cluster, mo);
  REQUIRE(master.ok());
  REQUIRE((*master)->Extend(FanInGraph(WorldSize())).ok());
  std::vector<Tensor> out;
  Tensor x = Tensor::FromVector<float>({1.f, 1.f, 1.f}, TensorShape{3});
  Status s = (*master)->Run({{"x", x}}, {"y"}, {}, &out);
  CHECK(s.code() == Code::kUnavailable);
  CHECK_THAT(s.message(), Catch::Contains("task /job:worker/replica:0/task:" + std::to_string(last) +
                                          " (rank " + std::to_string(last) + ")"));
  CHECK_THAT(s.message(), Catch::Contains("unresponsive"));
  (*master)->Shutdown();
}

}  // namespace
}  // namespace fb::mpi
