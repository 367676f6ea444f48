// Data parallelism over MPI (whitepaper section 7, Figure 6; OSDI 2016 backup workers): the
// distributed results are compared with a single-process Session trained on the same examples.
// Cluster: ps=1, worker=<ranks - 1>; rank 0 (the ps task) also hosts the client and master.
#include "mpi/data_parallel.h"

#include <catch2/catch.hpp>

#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"
#include "mpi/linear_model.h"
#include "tests/mpi/master_test_util.h"
#include "mpi/master.h"
#include "mpi/mpi_status.h"
#include "mpi/trainers.h"
#include "mpi/worker_service.h"
#include "tests/test_util.h"

namespace fb::mpi {
namespace {

constexpr int kRowsPerReplica = 16;
constexpr double kLearningRate = 0.1;

ClusterSpec PsCluster() { return *ClusterSpec::Parse("ps=1,worker=" + std::to_string(WorldSize() - 1)); }

// Adds "read_W" and "read_b" (Identity of the Variables) to fetch their values.
void AddReads(const Scope& root, const DataParallelGraph& g) {
  ops::Identity(root.WithOpName("read_W").WithDevice(g.vars[0].node()->requested_device()), g.vars[0]);
  ops::Identity(root.WithOpName("read_b").WithDevice(g.vars[1].node()->requested_device()), g.vars[1]);
}

// A master of `cluster` running `root`'s graph (plus read_W/read_b), variables initialised.
std::unique_ptr<Master> InitializedMaster(const ClusterSpec& cluster, const Scope& root,
                                          const DataParallelGraph& g) {
  AddReads(root, g);
  return StartTestMaster(cluster, root, g.init);
}

// Trains the model in one process for `steps` steps, step s on rows [0, rows) of step s, or on the
// rows of the replicas in `replicas_of_step(s)` when given; returns {W, b}.
std::vector<Tensor> SingleProcess(const LinearRegression& model, int steps, int rows) {
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildSyncReplicas(root, model.Fns(), {""}, {}, kLearningRate);
  AddReads(root, g);
  REQUIRE(root.ok());
  auto session = Session::Create({});
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(root.ToGraphDef()).ok());
  std::vector<Tensor> out;
  REQUIRE((*session)->Run({}, {}, {g.init}, &out).ok());
  for (int s = 0; s < steps; ++s)
    REQUIRE((*session)->Run(model.Feeds(0, model.Batch(s, 0, rows)), {}, {"train"}, &out).ok());
  REQUIRE((*session)->Run({}, {"read_W", "read_b"}, {}, &out).ok());
  return out;
}

std::vector<Tensor> ReadVars(Master* m) {
  std::vector<Tensor> out;
  Status s = m->Run({}, {"read_W", "read_b"}, {}, &out);
  INFO(s.ToString());
  REQUIRE(s.ok());
  return out;
}

TEST_CASE("Synchronous replication with a parameter server equals one large batch", "[mpi][dataparallel]") {
  ClusterSpec cluster = PsCluster();
  if (WorldRank() != 0) {
    REQUIRE(ServeWorker(cluster, {}).ok());
    return;
  }
  LinearRegression model;
  int replicas = WorldSize() - 1, steps = 4;
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildSyncReplicas(root, model.Fns(), JobDevices("worker", replicas),
                                          JobDevices("ps", 1), kLearningRate);
  std::unique_ptr<Master> master = InitializedMaster(cluster, root, g);
  std::vector<Tensor> out;
  for (int s = 0; s < steps; ++s) {
    std::vector<Master::NamedTensor> feeds;
    for (int r = 0; r < replicas; ++r) {
      auto f = model.Feeds(r, model.Batch(s, r * kRowsPerReplica, (r + 1) * kRowsPerReplica));
      feeds.insert(feeds.end(), f.begin(), f.end());
    }
    Status st = master->Run(feeds, {}, {"train"}, &out);
    INFO(st.ToString());
    REQUIRE(st.ok());
  }
  auto got = ReadVars(master.get());
  auto want = SingleProcess(model, steps, replicas * kRowsPerReplica);
  test::ExpectClose(got[0], want[0], 1e-5, 1e-6);
  test::ExpectClose(got[1], want[1], 1e-5, 1e-6);
  master->Shutdown();
}

TEST_CASE("Asynchronous replication converges", "[mpi][dataparallel]") {
  ClusterSpec cluster = PsCluster();
  if (WorldRank() != 0) {
    REQUIRE(ServeWorker(cluster, {}).ok());
    return;
  }
  LinearRegression model;
  int replicas = WorldSize() - 1, steps = 30;
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildAsyncReplicas(root, model.Fns(), JobDevices("worker", replicas),
                                           JobDevices("ps", 1), kLearningRate);
  std::unique_ptr<Master> master = InitializedMaster(cluster, root, g);
  std::vector<Tensor> out;
  auto initial = ReadVars(master.get());
  Status s = AsyncTrain(master.get(), g, steps, [&](int r, int64_t step) {
    return model.Feeds(r, model.Batch(step, r * kRowsPerReplica, (r + 1) * kRowsPerReplica));
  });
  INFO(s.ToString());
  REQUIRE(s.ok());
  auto final_vars = ReadVars(master.get());
  auto held_out = model.Batch(1000, 0, 256);
  double before = model.Loss(initial[0], initial[1], held_out);
  double after = model.Loss(final_vars[0], final_vars[1], held_out);
  INFO("held-out loss " << before << " -> " << after);
  // The training issue's band for this model: at least a 10x lower loss after 30 steps per
  // replica at learning rate 0.1 (the single-process run gets there in fewer than 30 steps).
  CHECK(after < before / 10);
  master->Shutdown();
}

TEST_CASE("Backup workers: the first N gradients of each step are applied, the straggler's dropped",
          "[mpi][dataparallel]") {
  if (WorldSize() < 3) return;  // needs N >= 1 replicas plus one backup: ps + 2 workers
  ClusterSpec cluster = PsCluster();
  int replicas = WorldSize() - 1, n = replicas - 1, steps = 3;
  int straggler_rank = WorldSize() - 1;  // worker task replicas - 1
  if (WorldRank() != 0) {
    WorkerOptions o;
    if (WorldRank() == straggler_rank) o.delay_ms = 1500;
    REQUIRE(ServeWorker(cluster, o).ok());
    return;
  }
  LinearRegression model;
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildBackupReplicas(root, model.Fns(), JobDevices("worker", replicas),
                                            JobDevices("ps", 1), n, kLearningRate);
  std::unique_ptr<Master> master = InitializedMaster(cluster, root, g);
  std::vector<Tensor> out;
  {
    BackupWorkerTrainer trainer(master.get(), g, n, [&](int r, int64_t step) {
      return model.Feeds(r, model.Batch(step, r * kRowsPerReplica, (r + 1) * kRowsPerReplica));
    });
    for (int s = 0; s < steps; ++s) {
      auto used = trainer.Step(s);
      INFO(used.status().ToString());
      REQUIRE(used.ok());
      REQUIRE(used->size() == static_cast<size_t>(n));
      for (int r : *used) CHECK(r != replicas - 1);  // the straggler's gradient is never applied
    }
    REQUIRE(trainer.Drain().ok());
  }
  // Equivalent to synchronous training on the first n replicas' rows.
  auto got = ReadVars(master.get());
  auto want = SingleProcess(model, steps, n * kRowsPerReplica);
  test::ExpectClose(got[0], want[0], 1e-5, 1e-6);
  test::ExpectClose(got[1], want[1], 1e-5, 1e-6);
  master->Shutdown();
}

TEST_CASE("Allreduce synchronous training equals one large batch", "[mpi][dataparallel][allreduce]") {
  LinearRegression model;
  int steps = 4, rank = WorldRank();
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildAllreduceReplica(root, model.Fns(), kLearningRate);
  AddReads(root, g);
  REQUIRE(root.ok());
  auto session = Session::Create({});
  REQUIRE(session.ok());
  REQUIRE((*session)->Extend(root.ToGraphDef()).ok());
  std::vector<Tensor> out;
  REQUIRE((*session)->Run({}, {}, {g.init}, &out).ok());
  for (int s = 0; s < steps; ++s) {
    auto batch = model.Batch(s, rank * kRowsPerReplica, (rank + 1) * kRowsPerReplica);
    Status st = (*session)->Run(model.Feeds(0, batch), {}, {"train"}, &out);
    INFO(st.ToString());
    REQUIRE(st.ok());
  }
  REQUIRE((*session)->Run({}, {"read_W", "read_b"}, {}, &out).ok());
  auto want = SingleProcess(model, steps, WorldSize() * kRowsPerReplica);
  test::ExpectClose(out[0], want[0], 1e-5, 1e-6);
  test::ExpectClose(out[1], want[1], 1e-5, 1e-6);
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace fb::mpi
