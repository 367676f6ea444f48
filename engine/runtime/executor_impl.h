#pragma once
// Internal to the executor: the immutable per-graph tables built once by Executor::Create and
// shared by every step. Not a public header.
#include <atomic>
#include <climits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/runtime/executor.h"

namespace fb {

struct OutEdgeInfo {
  int dst_id;
  int output_slot;  // kControlSlot for control edges
  int input_slot;   // kControlSlot for control edges
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
  int parallel_iterations = 10;
  std::string frame_name;  // Enter: the child frame
  // Pending count at the start of an iteration. For Merge: (control inputs << 1) | 1, the low bit
  // cleared by the first live data input (TensorFlow's encoding).
  int initial_pending = 0;
};

class ExecutorImpl {
 public:
  ExecutorImpl(std::unique_ptr<const Graph> graph, Device* device)
      : graph_(std::move(graph)), device_(device) {}
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

  // Inline scheduling: a node runs inline on the thread that made it ready unless it is
  // expensive: declared expensive (OpKernel::IsExpensive) and, once measured, with a mean run
  // time above kInexpensiveNs (TensorFlow's KernelStats, threshold 8,000 cycles).
  static constexpr int64_t kInexpensiveNs = 2000;
  static constexpr int64_t kMaxSampleNs = 3 * kInexpensiveNs;  // see RecordCost
  bool IsExpensive(int id) const {
    return items_[id].is_expensive && cost_ns_[id].load(std::memory_order_relaxed) > kInexpensiveNs;
  }
  // Folds one measured run time (ns, clipped at kMaxSampleNs) of declared-expensive node `id`
  // into its mean (weight 1/8 for the newest, so a kernel whose inputs grow is noticed within a
  // few steps).
  void RecordCost(int id, int64_t ns) const;

 private:
  std::unique_ptr<const Graph> graph_;
  Device* device_;
  std::vector<NodeItem> items_;  // indexed by node id; holes for removed ids
  std::vector<int> root_nodes_;  // nodes with no inputs at all
  int total_inputs_ = 0;
  std::map<std::string, int> frame_input_count_;
  // Per node id: mean run time in ns, kUnmeasured until the first run (steps share it).
  static constexpr int64_t kUnmeasured = INT64_MAX;
  std::unique_ptr<std::atomic<int64_t>[]> cost_ns_;
};

}  // namespace fb
