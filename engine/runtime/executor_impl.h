#pragma once
// Internal to the executor: the immutable per-graph tables built once by Executor::Create and
// shared by every step. Not a public header.
#include <atomic>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/runtime/executor.h"

namespace fb {

struct OutEdgeInfo {
  int dst_id;
  int output_slot;  // kControlSlot for control edges
  int input_slot;   // kControlSlot for control edges
  // The last data edge out of output_slot: its consumer may take the value (a move, not a copy:
  // a Tensor copy allocates its shape).
  bool last_use = false;
};

struct NodeItem {
  const Node* node = nullptr;
  std::unique_ptr<OpKernel> kernel;
  bool is_async = false;
  bool is_expensive = true;
  int input_start = 0;  // first slot of this node's inputs in IterationState::inputs
  int num_inputs = 0;
  int num_outputs = 0;
  int num_control_inputs = 0;
  std::vector<OutEdgeInfo> out_edges;
  std::vector<bool> input_is_ref;
  // Control flow (whitepaper 4.4).
  bool is_merge = false, is_switch = false, is_enter = false, is_exit = false;
  bool is_next_iteration = false, is_transfer = false;  // transfer: Send/Recv run even when dead
  bool is_constant_enter = false;
  bool is_control_trigger = false;  // ControlTrigger: never dead
  // On a device with its own memory (GPU), for all but _Send/_Recv/_Fetch: inputs are moved to the
  // kernel's memory type (HostMemory inputs to the host, the others to the device) before it runs.
  bool match_memory_types = false;
  int parallel_iterations = 10;
  std::string frame_name;  // Enter: the child frame
  // Pending count at the start of an iteration. For Merge: (control inputs << 1) | 1, the low bit
  // cleared by the first live data input (TensorFlow's encoding).
  int initial_pending = 0;
};

struct IterationState;

class ExecutorImpl {
 public:
  ExecutorImpl(std::unique_ptr<const Graph> graph, Device* device);
  ~ExecutorImpl();
  Status Initialize();

  const Graph& graph() const { return *graph_; }
  Device* device() const { return device_; }
  const NodeItem& item(int id) const { return items_[id]; }
  int num_items() const { return static_cast<int>(items_.size()); }
  int total_inputs() const { return total_inputs_; }
  const std::vector<int>& root_nodes() const { return root_nodes_; }
  // Number of Enter nodes feeding frame `frame_name` (its pending inputs when created).
  int FrameInputCount(const std::string& frame_name) const {
    auto it = frame_input_count_.find(frame_name);
    return it == frame_input_count_.end() ? 0 : it->second;
  }
  void RunAsync(const Executor::Args& args, Executor::DoneCallback done) const;
  // Per-node pending counts at the start of an iteration (NodeItem::initial_pending by id).
  const std::vector<int>& initial_pending() const { return initial_pending_; }

  // The (frame, iteration) slots of a new iteration: a recycled one when there is one. An
  // IterationState holds a slot for every input of the graph, so that allocating and freeing
  // one per loop iteration cost more than the iteration's small kernels (issue 16). The pool,
  // shared by all steps, keeps at most kMaxPooledIterations. Thread-safe.
  std::unique_ptr<IterationState> NewIteration() const;
  void RecycleIteration(std::unique_ptr<IterationState> iteration) const;
  static constexpr size_t kMaxPooledIterations = 64;

  // Inline scheduling: a node runs inline on the thread that made it ready unless it is
  // expensive: declared expensive (OpKernel::IsExpensive) and, once measured, with an estimated
  // run time above kInexpensiveNs (TensorFlow's KernelStats idea, threshold 8,000 cycles there).
  // The estimate is the shortest of the node's last kCostWindow runs: preemption by other
  // threads (common when threads outnumber cores) only ever adds time, so the minimum sees
  // through it, where a mean let preempted runs send a cheap kernel to the inter-op pool, where
  // it was preempted again and stayed. A kernel whose runs all grow longer (larger inputs) is
  // expensive after kCostWindow runs.
  static constexpr int64_t kInexpensiveNs = Executor::kInexpensiveNs;
  static constexpr int kCostWindow = 8;
  bool IsExpensive(int id) const {
    return items_[id].is_expensive && costs_[id].estimate.load(std::memory_order_relaxed) > kInexpensiveNs;
  }
  // Records one measured run time (ns) of declared-expensive node `id`; safe from any thread.
  void RecordCost(int id, int64_t ns) const;

 private:
  std::unique_ptr<const Graph> graph_;
  Device* device_;
  std::vector<NodeItem> items_;  // indexed by node id; holes for removed ids
  std::vector<int> root_nodes_;  // nodes with no inputs at all
  int total_inputs_ = 0;
  std::map<std::string, int> frame_input_count_;
  std::vector<int> initial_pending_;
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<IterationState>> iteration_pool_;
  // Per node id (steps share it): the last kCostWindow run times in ns (kNoSample where none
  // yet) and their minimum, kUnmeasured until the first run.
  static constexpr int64_t kUnmeasured = INT64_MAX;
  static constexpr int32_t kNoSample = INT32_MAX;
  struct CostWindow {
    std::atomic<int64_t> estimate{kUnmeasured};
    std::atomic<uint32_t> next{0};
    std::atomic<int32_t> samples[kCostWindow];
  };
  std::unique_ptr<CostWindow[]> costs_;
};

}  // namespace fb
