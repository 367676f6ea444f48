#pragma once
// Session: the client's handle on a graph (whitepaper section 2, "Sessions"; 4.2 partial
// execution). Extend grows the graph; Run(feeds, fetches, targets) executes the subgraph that
// the fetches and targets need, with fed tensors replacing their producers. For each distinct
// (feeds, fetches, targets) signature the Session rewrites, places and partitions the graph once
// and caches the per-device executors. The master then issues one run per device partition per
// step (3.2.2), and the devices schedule themselves.
// Thread-safety: Run may be called concurrently (concurrent steps, section 7); Extend and Close
// must not race with Run.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/graph.h"
#include "engine/framework/shape_inference.h"
#include "engine/runtime/executor.h"

namespace fb {

struct SessionOptions {
  DeviceOptions device_options;  // devices to create when device_mgr is null
  // Shares devices, and so Variables and containers (4.7), with other Sessions.
  std::shared_ptr<DeviceMgr> device_mgr;
  // Placement algorithm (see engine/placement). "" uses the default placer.
  std::string placer;
  uint64_t placer_seed = 0;  // seed of the "random" placer (PlacerOptions::seed)
  // Graph optimisation passes applied per signature (see engine/passes), by name.
  std::vector<std::string> passes;
  // Whether the default passes (DefaultGraphPasses, engine/passes/graph_pass.h) run before
  // `passes`, as TensorFlow runs Grappler unless told not to. They change no fetched value.
  bool default_passes = true;
};

struct RunOptions {
  bool trace = false;  // record one NodeExecStats per executed node in RunMetadata
  // > 0: the step is cancelled when it has not finished after this many milliseconds
  // (TensorFlow's RunOptions.timeout_in_ms): nodes not yet run are skipped, blocked queue
  // operations withdrawn and Recvs aborted, and Run returns DeadlineExceeded listing the
  // asynchronous nodes still pending (and the node the step stopped at). 0: no deadline.
  int64_t timeout_in_ms = 0;
  // Called (on Run's thread) when the deadline fires, with the DeadlineExceeded status that
  // lists the pending nodes, before Run waits for the step to wind down: a caller can report
  // it even if a kernel that cannot be cancelled keeps the step from ending.
  std::function<void(const Status&)> on_deadline;
};

struct RunMetadata {
  int64_t step_id = 0;
  std::vector<NodeExecStats> step_stats;
  // Peak bytes per device during the step (allocator peak, reset at step start).
  std::map<std::string, int64_t> peak_bytes;
  int64_t bytes_transferred = 0;  // through the in-process Rendezvous
  // What the graph passes of SessionOptions::passes changed for this signature (one summary
  // per pass, PassReport::Summary; a default pass only when it changed something) and the
  // Send/Recv pairs partitioning inserted.
  std::vector<std::string> pass_reports;
  int num_send_recv_pairs = 0;
};

// One placed and partitioned subgraph per device, ready to run.
struct PartitionedExecutors {
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<DataType> feed_types;
  std::vector<DataType> fetch_types;
  std::vector<PartialShape> feed_shapes;  // declared shapes of fed Placeholders (checked on Run)
  int nodes_pruned = 0;
  std::vector<std::string> pass_reports;
  int num_send_recv_pairs = 0;
};

class Session {
 public:
  using NamedTensor = std::pair<std::string, Tensor>;
  static StatusOr<std::unique_ptr<Session>> Create(const SessionOptions& options);
  ~Session();

  // Adds nodes to the graph. On error (names the node) the graph is unchanged.
  Status Extend(const GraphDef& graph);
  // Feeds: {"name:port", tensor}; fetches: "name:port"; targets: node names run for effect.
  // `outputs` may be null only when there are no fetches.
  // Errors: NotFound for unknown feed/fetch/target names, InvalidArgument for a fed tensor of
  // the wrong dtype or shape, or the first kernel failure (naming node and device);
  // DeadlineExceeded after options.timeout_in_ms (see RunOptions).
  Status Run(const std::vector<NamedTensor>& feeds, const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets, std::vector<Tensor>* outputs);
  Status Run(const RunOptions& options, const std::vector<NamedTensor>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunMetadata* metadata);
  // Drops every resource in `containers` on this Session's devices (4.7).
  Status Reset(const std::vector<std::string>& containers);
  // Releases executors; later Runs fail with Cancelled.
  Status Close();

  const Graph& graph() const { return *graph_; }
  DeviceMgr* device_mgr() const { return device_mgr_.get(); }
  std::shared_ptr<DeviceMgr> shared_device_mgr() const { return device_mgr_; }
  // Number of distinct signatures compiled so far (for tests of executor caching).
  size_t num_cached_executors() const;

 private:
  explicit Session(const SessionOptions& options, std::shared_ptr<DeviceMgr> mgr);
  StatusOr<std::shared_ptr<PartitionedExecutors>> GetOrCreateExecutors(
      const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);
  StatusOr<std::shared_ptr<PartitionedExecutors>> CreateExecutors(
      const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
      const std::vector<std::string>& targets);

  SessionOptions options_;
  std::shared_ptr<DeviceMgr> device_mgr_;
  std::unique_ptr<Graph> graph_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<PartitionedExecutors>> executors_;
  bool closed_ = false;
};

// Checks a fed tensor against the fed output's dtype and declared shape. InvalidArgument naming
// the feed.
Status ValidateFeed(const std::string& name, const Tensor& t, DataType want,
                    const PartialShape& shape);

}  // namespace fb
