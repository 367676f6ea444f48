#pragma once
// Worker: the worker process of whitepaper 3 / 3.2.2 on one MPI rank. It owns the rank's devices
// (named for its task, /job:J/replica:0/task:T/device:CPU:i), keeps the graph partitions the
// master registered (one Executor per device), and runs them for a step id with an MpiRendezvous
// of that step, so Send/Recv pairs across ranks meet. Variables live in the worker's devices and
// persist across steps. Thread-safety: every method may be called from any thread; steps may run
// concurrently (asynchronous training runs one step per replica at a time).
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/framework/device.h"
#include "engine/graph/node_def.h"
#include "engine/placement/device_desc.h"
#include "engine/runtime/call_frame.h"
#include "engine/runtime/executor.h"
#include "mpi/cluster_spec.h"
#include "mpi/mpi_rendezvous.h"

namespace fb::mpi {

struct WorkerOptions {
  int num_cpu_devices = 1;
  int threads_per_cpu = 0;  // 0: this rank's share of the node's cores (CoresPerLocalRank)
  // Fault injection for tests (3.3): from the `hang_at_run`-th run request on (1-based), the
  // worker stops answering (runs, pings) for `hang_ms`; `delay_ms` delays every run (a straggler,
  // for backup workers); at its `exit_at_run`-th run request the process exits at once without
  // MPI_Finalize (a crash: mpirun then ends the job, see supervisor.h). 0 disables.
  int hang_at_run = 0;
  int exit_at_run = 0;
  int hang_ms = 0;
  int delay_ms = 0;
};

class Worker {
 public:
  using DoneCallback = std::function<void(const Status&)>;
  // Creates the devices of `rank`'s task in `cluster`.
  static StatusOr<std::unique_ptr<Worker>> Create(const ClusterSpec& cluster, int rank,
                                                  const WorkerOptions& options = {});
  ~Worker();

  DeviceSet devices() const;
  const std::string& task_name() const { return task_name_; }  // "/job:worker/replica:0/task:1"
  int rank() const { return rank_; }
  const WorkerOptions& options() const { return options_; }

  // Creates executors for `partitions` (device name -> GraphDef) under `handle`. Errors name the
  // task and the node (unknown device, missing kernel, bad GraphDef); AlreadyExists for a reused
  // handle.
  Status RegisterGraph(int64_t handle, const std::map<std::string, GraphDef>& partitions);
  // Runs the partitions of `handle` for `step_id`; `frame` (feeds and fetches, rank 0 only) may be
  // null; `stats`, when not null, records every node execution (tracing, whitepaper 9) and must
  // outlive `done`. `done` gets the first error, prefixed with this task's name; Aborted if the
  // step was aborted before it started. `start_on` applies to the last partition (the others
  // start on their pools): kCaller for a caller that only waits for `done` (the master's client
  // thread), kCallerInexpensive for the MPI progress thread (Executor::Args::StartOn).
  void RunGraph(int64_t handle, int64_t step_id, CallFrame* frame, StepStatsCollector* stats,
                DoneCallback done, Executor::Args::StartOn start_on = Executor::Args::StartOn::kRunner);
  // Aborts the step's rendezvous (running Recvs fail, executors stop); a later RunGraph of that
  // step fails at once.
  void AbortStep(int64_t step_id, const Status& status);

 private:
  struct Step;
  void RunGraphNow(int64_t handle, int64_t step_id, CallFrame* frame, StepStatsCollector* stats,
                   DoneCallback done, Executor::Args::StartOn start_on);
  Worker(const ClusterSpec& cluster, int rank, const WorkerOptions& options,
         std::shared_ptr<DeviceMgr> devices);

  ClusterSpec cluster_;
  int rank_;
  WorkerOptions options_;
  std::string task_name_;
  std::shared_ptr<DeviceMgr> device_mgr_;
  std::mutex mu_;
  std::map<int64_t, std::vector<std::shared_ptr<Executor>>> graphs_;
  std::map<int64_t, std::shared_ptr<Step>> steps_;
  std::set<int64_t> aborted_;
  int delayed_ = 0;  // runs waiting out delay_ms
};

}  // namespace fb::mpi
