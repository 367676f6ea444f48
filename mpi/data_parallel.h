#pragma once
// Data-parallel training graphs (whitepaper section 7, Figure 6; OSDI 2016 for backup workers).
// A model is given as two functions: one creating its Variables (with initializers), one building
// a replica's mean loss from those Variables (it creates the replica's input Placeholders under
// the scope it gets, so replica i's feeds are named "replica_<i>/<placeholder>"). The builders
// place Variables on the parameter-server tasks (round-robin over `ps_devices`, as
// tf.train.replica_device_setter) and each replica's forward and backward pass on its worker
// task; gradients reach the parameter servers as Send/Recv across ranks.
//
//  - BuildSyncReplicas: one "train" target; the replicas' gradients are averaged on the ps and
//    applied once: with equal shards, exactly one large batch (mean of shard means).
//  - BuildAsyncReplicas: targets "train_<i>", each applying replica i's gradient on its own;
//    run them concurrently (one client thread per replica, AsyncTrain).
//  - BuildBackupReplicas: N+b replicas; target "compute_<i>" stores replica i's gradient in slot
//    Variables on the ps, "apply" applies sum_i weight_i * slot_i with weights fed per step
//    ("backup/weight_<i>", 1/N for the first N replicas to finish, 0 for the others: their
//    gradients are dropped). BackupWorkerTrainer drives it.
//  - BuildAllreduceReplica: no ps; each rank holds a copy of the Variables and runs its own local
//    Session; the gradients are averaged by one fused MpiAllreduce per step (SPMD).
// Plain gradient descent with learning rate `learning_rate`; float models. A replica's update
// ops run with its training target (sync: all of them with "train"; async: replica i's with
// train_<i>; backup: with compute_<i>, so a dropped replica still moves the moving statistics,
// as TensorFlow's did) and are placed with the Variable they update; with allreduce every rank
// updates its own copy (not averaged). Errors stick to the scope (Scope::status()).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/client/scope.h"

namespace fb::mpi {

// A model's Variables, created once (on the parameter servers).
struct ModelVariables {
  std::vector<Output> trainable;     // each gets a gradient and an update
  std::vector<Output> initializers;  // Assign outputs, every Variable's
  // Variables without a gradient that the replicas update themselves, e.g. batch normalization's
  // moving statistics (experiments/models/batch_norm.h). Placed like the trainable ones
  // (round-robin continued after them) and checkpointed with them.
  std::vector<Output> non_trainable;
};

// One replica's outputs: its mean loss (scalar) and the ops each of its training steps also
// runs (the moving-average updates of the non-trainable Variables; TensorFlow's UPDATE_OPS,
// which its replicated Inception trainer ran in every worker's train op, sync or not).
struct ReplicaOutputs {
  ReplicaOutputs(Output loss = Output(), std::vector<Output> updates = {})  // NOLINT: implicit
      : loss(loss), updates(std::move(updates)) {}
  Output loss;
  std::vector<Output> updates;
};

struct ModelFns {
  // Creates the Variables under `scope`.
  std::function<ModelVariables(const Scope& scope)> variables;
  // Builds one replica from the Variables, creating its Placeholders under `scope`.
  std::function<ReplicaOutputs(const Scope& scope, const ModelVariables& vars)> loss;
};

struct DataParallelGraph {
  std::vector<Output> vars;                 // trainable, then non-trainable (checkpointed)
  std::vector<Output> losses;               // per replica ("replica_<i>/...")
  std::string init;                         // target running every initializer
  std::vector<std::string> train_targets;   // sync: {"train"}; async: train_<i>; backup: compute_<i>
  std::string apply_target;                 // backup: "apply"
  std::vector<std::string> weight_feeds;    // backup: "backup/weight_<i>"
};

// The scope prefix of replica i's nodes and feeds: "replica_<i>".
std::string ReplicaPrefix(int replica);

DataParallelGraph BuildSyncReplicas(const Scope& root, const ModelFns& model,
                                    const std::vector<std::string>& worker_devices,
                                    const std::vector<std::string>& ps_devices, double learning_rate);
DataParallelGraph BuildAsyncReplicas(const Scope& root, const ModelFns& model,
                                     const std::vector<std::string>& worker_devices,
                                     const std::vector<std::string>& ps_devices, double learning_rate);
// worker_devices has N + b entries; `num_to_apply` is N.
DataParallelGraph BuildBackupReplicas(const Scope& root, const ModelFns& model,
                                      const std::vector<std::string>& worker_devices,
                                      const std::vector<std::string>& ps_devices, int num_to_apply,
                                      double learning_rate);
// One replica (this rank's) with its gradients averaged across all ranks: target "train",
// feeds "replica_0/...".
DataParallelGraph BuildAllreduceReplica(const Scope& root, const ModelFns& model, double learning_rate);

// "/job:<job>/task:<i>" for every task of `job` in `cluster_spec` order, e.g. for 3 workers.
std::vector<std::string> JobDevices(const std::string& job, int num_tasks);

}  // namespace fb::mpi
