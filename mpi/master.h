#pragma once
// Master: the client-facing half of a distributed run on rank 0 (whitepaper 3, 3.2.2, 3.3). It
// holds the client's graph; per distinct (feeds, fetches, targets) it rewrites the graph (4.2),
// places it on the devices of every rank (each worker registered its devices), partitions it
// (Send/Recv across ranks become MPI transfers), and registers each rank's partitions with that
// rank's worker (GraphDef JSON). Each step it then issues one "run" per worker (3.2.2) with a
// fresh step id and waits for every "done". Feeds and fetches live on rank 0 (the client's task).
//
// Errors (3.3): the first failure of any rank aborts the step on every rank, and Run returns it
// naming the task and the node (e.g. "/job:worker/replica:0/task:1: node 'loss' (Log) on ...").
// While a step is outstanding the master pings the ranks it waits for every
// `health_check_interval_ms`; a rank that does not answer within `unresponsive_timeout_ms` is
// declared unresponsive: the step is aborted with Unavailable naming its task and rank.
// Thread-safety: Run may be called from several threads at once (concurrent steps, asynchronous
// training); Extend must not race with Run.
#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/runtime/session.h"
#include "engine/runtime/subgraph.h"
#include "mpi/cluster_spec.h"
#include "mpi/control_message.h"
#include "mpi/worker.h"

namespace fb::mpi {

struct MasterOptions {
  std::string placer;                       // "" : the default placer
  int64_t health_check_interval_ms = 1000;  // ping pending ranks after this long
  int64_t unresponsive_timeout_ms = 10000;  // no pong within this: the rank is unresponsive
  int64_t registration_timeout_ms = 60000;  // workers must announce their devices within this
  // While Run waits for a step, the client thread runs the MPI progress engine itself
  // (MpiTransport::DriveUntil) instead of sleeping until the progress thread wakes it: no
  // thread handoff on rank 0 per step. Like the progress thread, it then runs only the
  // inexpensive nodes of rank 0's partition (expensive ones go to the inter-op pool), so that no
  // kernel holds up the step's transfers. The environment variable FLOWBENCH_MPI_CALLER_DRIVES=0
  // turns it off.
  bool drive_progress = true;
  WorkerOptions local_worker;               // rank 0's own worker
};

class Master {
 public:
  using NamedTensor = std::pair<std::string, Tensor>;
  // Creates rank 0's worker and waits for every other rank's "devices" registration.
  // DeadlineExceeded naming the missing ranks after registration_timeout_ms.
  static StatusOr<std::unique_ptr<Master>> Create(const ClusterSpec& cluster,
                                                  const MasterOptions& options = {});
  // Sends "shutdown" to every worker (see Shutdown).
  ~Master();

  Status Extend(const GraphDef& graph);
  // One distributed step. Errors: those of Session::Run (unknown feed/fetch names, bad feeds),
  // placement and registration errors naming the task, and step failures as described above.
  Status Run(const std::vector<NamedTensor>& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs);
  // The same; with options.trace, every rank records its node executions and returns them with
  // its "done" (whitepaper 9: traces of distributed runs), merged into metadata->step_stats with
  // each record's `rank` set (times are each rank's CLOCK_REALTIME: comparable across ranks on
  // one machine, offset by the clock skew between machines). metadata->step_id is the step id.
  Status Run(const RunOptions& options, const std::vector<NamedTensor>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunMetadata* metadata);
  // The graph a step of this signature runs, before placement: the client graph rewritten for
  // its feeds and fetches (4.2: _Feed/_Fetch nodes, pruned to what the step needs), with
  // _Feed/_Fetch requested on rank 0's device, where the client's call frame lives. What the
  // simulator replays (`flowbench dist-train --export-graph`). Errors: those of the rewrite,
  // naming the feed, fetch or target.
  StatusOr<std::unique_ptr<Graph>> ExecutionGraph(const std::vector<std::string>& feeds,
                                                  const std::vector<std::string>& fetches,
                                                  const std::vector<std::string>& targets,
                                                  RewriteResult* rewrite = nullptr);
  // Pings every worker; Unavailable naming the ranks that did not answer within the timeout.
  Status CheckHealth();
  // Tells every worker to stop serving; later Runs fail with Cancelled. Idempotent.
  void Shutdown();

  // Every device of the cluster, rank 0's first (what placement sees).
  const DeviceSet& devices() const { return devices_; }
  const ClusterSpec& cluster() const { return cluster_; }
  Worker* local_worker() { return local_.get(); }
  int64_t steps_run() const { return steps_run_.load(); }

 private:
  struct Compiled;
  struct PendingStep;
  Master(const ClusterSpec& cluster, const MasterOptions& options);
  void Handle(int src, const std::string& bytes);
  Status WaitForDevices();
  StatusOr<std::shared_ptr<Compiled>> Compile(const std::vector<std::string>& feeds,
                                              const std::vector<std::string>& fetches,
                                              const std::vector<std::string>& targets);
  Status RegisterPartitions(Compiled* c, const std::map<int, std::map<std::string, GraphDef>>& by_rank);
  // Waits until every rank of `p` answered; pings and aborts as described above.
  Status Await(PendingStep* p, const std::string& what);
  void Abort(PendingStep* p, const Status& s);
  std::string TaskOf(int rank) const;

  ClusterSpec cluster_;
  MasterOptions options_;
  std::unique_ptr<Worker> local_;
  DeviceSet devices_;
  std::unique_ptr<Graph> graph_;

  std::mutex mu_;  // everything below
  std::condition_variable cv_;
  std::map<int, DeviceSet> registered_devices_;
  std::map<std::string, std::shared_ptr<Compiled>> compiled_;
  std::map<int64_t, std::shared_ptr<PendingStep>> pending_;  // by step id (runs) or -handle (registrations)
  std::map<int, int64_t> last_pong_seq_;
  bool shut_down_ = false;
  std::atomic<int64_t> steps_run_{0};
};

}  // namespace fb::mpi
