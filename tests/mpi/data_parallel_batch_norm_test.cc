// Data-parallel training of a batch-normalized model (mpi/data_parallel.h): the moving statistics
// are created once (on the parameter server, after the trainable Variables), every replica's
// training step updates them (TensorFlow's UPDATE_OPS in each worker's train op) and checkpoints
// hold them. Model: one BatchNorm over 2 channels, loss mean(y^2); replica r's batch has channel
// 0 = {r + 0, r + 2} (mean r + 1) and channel 1 = {0, 0}.
#include <mpi.h>

#include <catch2/catch.hpp>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"
#include "experiments/models/batch_norm.h"
#include "mpi/data_parallel.h"
#include "mpi/master.h"
#include "mpi/mpi_status.h"
#include "mpi/worker_service.h"
#include "tests/mpi/master_test_util.h"
#include "tests/test_util.h"

namespace fb::mpi {
namespace {

using experiments::VariableSpec;
using experiments::VariableStore;

VariableSpec Filled(const std::string& name, float fill) {
  VariableSpec v{name, TensorShape({2}), true};
  v.fill = fill;
  return v;
}

ModelFns BatchNormModel() {
  ModelFns fns;
  fns.variables = [](const Scope& s) {
    VariableStore store(1);
    s.UpdateStatus(store.CreateFromSpecs(s, {Filled("bn/gamma", 1), Filled("bn/beta", 0)},
                                         {Filled("bn/moving_mean", 0),
                                          Filled("bn/moving_variance", 1)}));
    return ModelVariables{store.variables(), store.initializers(), store.non_trainable_variables()};
  };
  fns.loss = [](const Scope& s, const ModelVariables& v) -> ReplicaOutputs {
    VariableStore store = VariableStore::Reusing(v.trainable, v.non_trainable);
    Output x = ops::Placeholder(s.WithOpName("x"), DataType::kFloat, TensorShape{-1, 1, 1, 2});
    Output y = experiments::BatchNorm(s, &store, "bn", x, 2, experiments::Activation::kNone);
    return {ops::Mean(s.WithOpName("loss"), ops::Mul(s, y, y), std::vector<int>{0, 1, 2, 3}),
            store.updates()};
  };
  return fns;
}

std::vector<Session::NamedTensor> Feeds(int replicas) {
  std::vector<Session::NamedTensor> feeds;
  for (int r = 0; r < replicas; ++r)
    feeds.push_back({ReplicaPrefix(r) + "/x",
                     Tensor::FromVector(std::vector<float>{float(r), 0, float(r + 2), 0},
                                        TensorShape{2, 1, 1, 2})});
  return feeds;
}

// One step from moving mean 0 with decay 0.9 and 2 replicas (channel 0's batch means 1 and 2):
// the two AssignSubs run in either order or read the mean concurrently (as TensorFlow's did), so
// channel 0 is 0.29 (replica 0's first: 0.1, then 0.1 + 0.1 * 1.9), 0.28 (replica 1's first) or
// up to 0.3 (both read 0); channel 1 stays 0.
void CheckMovingMeanAfterOneStep(const Tensor& mean) {
  const auto m = test::Values<float>(mean);
  CHECK(m[0] >= 0.28f - 1e-6f);
  CHECK(m[0] <= 0.30f + 1e-6f);
  CHECK(m[1] == Approx(0).margin(1e-7));
}

TEST_CASE("Sync replicas of a batch-normalized model each update the shared moving statistics",
          "[mpi][dataparallel][batch_norm]") {
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildSyncReplicas(root, BatchNormModel(), {"", ""}, {}, 0.1);
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  // Trainable first, then the moving statistics: four Variables in all, created once.
  REQUIRE(g.vars.size() == 4);
  CHECK(g.vars[2].node()->name() == "bn/moving_mean");
  CHECK(g.vars[3].node()->name() == "bn/moving_variance");
  auto session = test::MakeSession(root.ToGraphDef());
  test::RunOk(session.get(), {}, {}, {g.init});
  test::RunOk(session.get(), Feeds(2), {}, {"train"});
  auto stats = test::RunOk(session.get(), {}, {"bn/moving_mean:0"}, {});
  CheckMovingMeanAfterOneStep(stats[0]);
}

TEST_CASE("The replicas' moving-statistics updates are placed with the Variables on the ps",
          "[mpi][dataparallel][batch_norm]") {
  for (const std::string mode : {"sync", "async", "backup"}) {
    INFO(mode);
    Scope root = Scope::NewRootScope();
    const auto workers = JobDevices("worker", 2), ps = JobDevices("ps", 3);
    DataParallelGraph g = mode == "sync"    ? BuildSyncReplicas(root, BatchNormModel(), workers, ps, 0.1)
                          : mode == "async" ? BuildAsyncReplicas(root, BatchNormModel(), workers, ps, 0.1)
                                            : BuildBackupReplicas(root, BatchNormModel(), workers, ps, 1, 0.1);
    INFO(root.status().ToString());
    REQUIRE(root.ok());
    // Round-robin continues after the trainable Variables: gamma, beta, moving_mean on tasks 0-2,
    // moving_variance on task 0.
    CHECK(g.vars[2].node()->requested_device() == "/job:ps/task:2");
    CHECK(g.vars[3].node()->requested_device() == "/job:ps/task:0");
    for (int r = 0; r < 2; ++r) {
      const std::string update = ReplicaPrefix(r) + "/bn/moving_mean_update";
      Node* n = root.graph()->FindNode(update);
      REQUIRE(n != nullptr);
      CHECK(n->requested_device() == "/job:ps/task:2");
      // The batch statistics are computed on the replica's worker.
      Node* bn = root.graph()->FindNode(ReplicaPrefix(r) + "/bn/FusedBatchNorm");
      REQUIRE(bn != nullptr);
      CHECK(bn->requested_device() == workers[static_cast<size_t>(r)]);
      // The replica's training target runs its update.
      const std::string target = mode == "sync" ? "train" : (mode == "async" ? "train_" : "compute_") + std::to_string(r);
      Node* t = root.graph()->FindNode(target);
      REQUIRE(t != nullptr);
      bool runs_update = false;
      for (const Edge* e : t->in_edges()) runs_update |= e->src == n;
      CHECK(runs_update);
    }
  }
}

TEST_CASE("Sync replicas of a batch-normalized model train over MPI with the statistics on the ps",
          "[mpi][dataparallel][batch_norm]") {
  if (WorldSize() != 3) return;  // ps + 2 workers
  ClusterSpec cluster = *ClusterSpec::Parse("ps=1,worker=2");
  if (WorldRank() != 0) {
    REQUIRE(ServeWorker(cluster, {}).ok());
    return;
  }
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildSyncReplicas(root, BatchNormModel(), JobDevices("worker", 2),
                                          JobDevices("ps", 1), 0.1);
  ops::Identity(root.WithOpName("read_mean").WithDevice("/job:ps/task:0"), g.vars[2]);
  std::unique_ptr<Master> master = StartTestMaster(cluster, root, g.init);
  std::vector<Tensor> out;
  Status st = master->Run(Feeds(2), {}, {"train"}, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  REQUIRE(master->Run({}, {"read_mean"}, {}, &out).ok());
  CheckMovingMeanAfterOneStep(out[0]);
  master->Shutdown();
}

TEST_CASE("With allreduce each rank keeps and updates its own moving statistics",
          "[mpi][dataparallel][batch_norm][allreduce]") {
  const int rank = WorldRank();
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildAllreduceReplica(root, BatchNormModel(), 0.1);
  INFO(root.status().ToString());
  REQUIRE(root.ok());
  REQUIRE(g.vars.size() == 4);
  auto session = test::MakeSession(root.ToGraphDef());
  test::RunOk(session.get(), {}, {}, {g.init});
  // This rank's batch: channel 0 = {rank, rank + 2} (mean rank + 1), channel 1 = {0, 0}.
  const float r = static_cast<float>(rank);
  test::RunOk(session.get(),
              {{ReplicaPrefix(0) + "/x",
                Tensor::FromVector(std::vector<float>{r, 0, r + 2, 0}, TensorShape{2, 1, 1, 2})}},
              {}, {"train"});
  const auto v = test::RunOk(session.get(), {}, {"bn/moving_mean:0"}, {});
  // Not averaged over the ranks (that would give 0.1 x the mean of 1 .. ranks on every rank):
  // 0.1 x this rank's own batch mean. (The trainable Variables' averaging: the allreduce test of
  // data_parallel_test.cc.)
  CHECK(test::Values<float>(v[0])[0] == Approx(0.1 * (rank + 1)));
  MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace fb::mpi
