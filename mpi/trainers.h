#pragma once
// Client loops for the data-parallel graphs of data_parallel.h, driving a Master on rank 0:
// asynchronous replication (each replica steps at its own cadence from its own client thread,
// whitepaper section 7, Figure 6 right) and synchronous replication with backup workers
// (OSDI 2016 section 4.4: N+b replicas start each step, the first N gradients are applied, the
// stragglers' are dropped).
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <vector>

#include "mpi/data_parallel.h"
#include "mpi/master.h"

namespace fb::mpi {

// Feeds of replica `replica` for step `step` (names "replica_<i>/<placeholder>").
using ReplicaFeedFn = std::function<std::vector<Master::NamedTensor>(int replica, int64_t step)>;

// Runs `steps_per_replica` steps of every "train_<i>" target, one client thread per replica,
// concurrently. Returns the first error (naming the task and node).
Status AsyncTrain(Master* master, const DataParallelGraph& graph, int steps_per_replica,
                  const ReplicaFeedFn& feeds);

class BackupWorkerTrainer {
 public:
  BackupWorkerTrainer(Master* master, const DataParallelGraph& graph, int num_to_apply,
                      ReplicaFeedFn feeds);
  // Waits for the stragglers (Drain).
  ~BackupWorkerTrainer();
  // One synchronous step: starts "compute_<i>" on every idle replica, waits for the first
  // `num_to_apply` of them to finish, then runs "apply" with weight 1/N for those and 0 for the
  // rest. A straggler still busy with an earlier step joins once it is done. Returns the
  // replicas whose gradients were applied, in finishing order. Errors: the first failing compute
  // (naming task and node) or the apply.
  StatusOr<std::vector<int>> Step(int64_t step);
  // Waits until no replica is computing.
  Status Drain();

 private:
  void LaunchIdleLocked(int64_t step);
  Master* master_;
  DataParallelGraph graph_;
  int num_to_apply_;
  ReplicaFeedFn feeds_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<bool> busy_;
  std::vector<int64_t> launched_step_;
  std::vector<int> finished_;  // replicas that finished a compute started in the current step
  Status status_;
  int64_t current_step_ = -1;
  std::vector<std::future<void>> running_;
};

}  // namespace fb::mpi
