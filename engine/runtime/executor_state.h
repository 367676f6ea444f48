#pragma once
// Internal to the executor: the state of one step (one RunAsync call). Frames and iterations
// follow TensorFlow's executor (tagged tokens, whitepaper 4.4): every value carries the frame
// and iteration it belongs to, and each (frame, iteration) has its own input slots and pending
// counts. Not a public header.
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/runtime/executor_impl.h"

namespace fb {

struct Entry {
  Tensor val;
  Var* ref = nullptr;
  bool has_value = false;
};

struct IterationState {
  explicit IterationState(const ExecutorImpl& impl);
  // Back to the state of a new iteration, for reuse (ExecutorImpl::NewIteration): O(nodes +
  // inputs delivered), not O(all input slots).
  void Reset(const ExecutorImpl& impl);
  std::vector<Entry> inputs;    // ExecutorImpl::total_inputs() slots
  std::vector<int> filled;      // the slots of `inputs` written (by ActivateNodes) since Reset
  std::vector<int> pending;     // per node id
  std::vector<int> dead_count;  // per node id
  int outstanding_ops = 0;      // nodes of this iteration made ready and not yet done
  int outstanding_frame_count = 0;  // child frames started in this iteration and not done
};

struct FrameState {
  std::mutex mu;
  std::string frame_name;
  int64_t frame_id = 0;
  FrameState* parent_frame = nullptr;
  int64_t parent_iter = 0;
  int max_parallel_iterations = 1;
  int num_pending_inputs = 0;     // Enter nodes not yet run into this frame
  int64_t iteration_count = 0;    // the newest iteration
  int num_outstanding_iterations = 1;
  std::map<int64_t, std::unique_ptr<IterationState>> iterations;
  // Loop-invariant inputs (constant Enter) delivered to every new iteration.
  // (enter node id, its outputs: the one value), kept as the vector ActivateNodes takes so that
  // each new iteration delivers it without copying.
  std::vector<std::pair<int, std::vector<Entry>>> inv_values;
  std::vector<int> dead_exits;
  std::vector<std::pair<int, Entry>> next_iter_roots;  // NextIteration outputs waiting for a slot
  IterationState* GetIteration(int64_t iter) {
    auto it = iterations.find(iter);
    return it == iterations.end() ? nullptr : it->second.get();
  }
};

struct TaggedNode {
  int id;
  FrameState* frame;
  int64_t iter;
  bool is_dead;
};
using TaggedNodeSeq = std::vector<TaggedNode>;

class ExecutorState {
 public:
  ExecutorState(const ExecutorImpl& impl, const Executor::Args& args, Executor::DoneCallback done);
  ~ExecutorState();
  // Starts the step: schedules root nodes. The state deletes itself when the step finishes.
  void Start();

 private:
  // Runs `nodes` and, inline, the inexpensive nodes they make ready and one expensive one. With
  // `budget_ns` > 0 (a thread that must not be held): only inexpensive ones, and after
  // `budget_ns` what remains goes to the runner.
  void Process(std::deque<TaggedNode> nodes, int64_t budget_ns = 0);
  // The completion of asynchronous kernel `tagged` (ready: what its outputs made ready).
  void AsyncNodeDone(const Status& s, const TaggedNode& tagged, const TaggedNodeSeq& ready);
  // Moves the inputs of `node` out of its iteration's slots. Errors on uninitialized variables.
  Status PrepareInputs(const NodeItem& item, IterationState* iter_state,
                       std::vector<TensorValue>* inputs, std::vector<bool>* input_dead);
  // Moves the kernel's outputs out of `ctx` (which ends with the node) into `outputs`.
  Status ProcessOutputs(const NodeItem& item, OpKernelContext* ctx, std::vector<Entry>* outputs);
  void PropagateOutputs(const TaggedNode& tagged, const NodeItem& item,
                        std::vector<Entry>* outputs, std::vector<bool>* dead_outputs,
                        TaggedNodeSeq* ready);
  // Delivers outputs to consumers in (frame, iter); appends nodes that became ready.
  // `consumable`: null, or `outputs` itself when they are delivered only this once, so that the
  // last consumer of each output takes the value instead of a copy.
  void ActivateNodes(const NodeItem& item, bool is_dead, FrameState* frame, int64_t iter,
                     const std::vector<Entry>& outputs, const std::vector<bool>& dead_outputs,
                     TaggedNodeSeq* ready, std::vector<Entry>* consumable = nullptr);
  // Returns true when the step is complete.
  // `inline_ready`: where nodes to run on this thread go (nullptr: none), `inexpensive_only`:
  // expensive nodes always go to the runner.
  bool NodeDone(const Status& s, const TaggedNode& tagged, const TaggedNodeSeq& ready,
                std::deque<TaggedNode>* inline_ready, bool inexpensive_only = false);
  void ScheduleReady(const TaggedNodeSeq& ready, std::deque<TaggedNode>* inline_ready,
                     bool inexpensive_only = false);
  void Finish();
  // The status of a node not run because the step was cancelled (names its frame, iteration).
  Status CancelledNode(const TaggedNode& tagged) const;
  // Registers an asynchronous kernel about to start with the step's CancellationManager (its
  // description is listed as pending if the step is cancelled); -1 without one.
  CancellationToken RegisterInFlight(const TaggedNode& tagged);
  // Control flow, in executor_frames.cc.
  FrameState* FindOrCreateChildFrame(FrameState* frame, int64_t iter, const NodeItem& enter);
  void IncrementIteration(FrameState* frame, TaggedNodeSeq* ready);
  void ActivateLoopInvariants(FrameState* frame, int64_t iter, TaggedNodeSeq* ready);
  // Called after a node of (frame, iter) completes; cleans up finished iterations and frames.
  void CleanupFramesIterations(FrameState* frame, int64_t iter, TaggedNodeSeq* ready);
  bool IsIterationDone(FrameState* frame, int64_t iter);
  bool IsFrameDone(FrameState* frame);
  void DeleteFrame(FrameState* frame, TaggedNodeSeq* ready);
  // Deletes a finished frame and, recursively, parents that finish with it.
  void FinishFrame(FrameState* frame, TaggedNodeSeq* ready);

  const ExecutorImpl& impl_;
  Executor::Args args_;
  Executor::DoneCallback done_;
  FrameState root_frame_;
  std::mutex child_frames_mu_;
  std::map<std::string, std::unique_ptr<FrameState>> child_frames_;  // by "parent;iter;name"
  std::atomic<int> num_outstanding_ops_{0};
  std::mutex status_mu_;
  Status status_;
  std::atomic<bool> aborted_{false};
};

}  // namespace fb
