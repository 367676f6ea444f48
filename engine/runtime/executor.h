#pragma once
// Executor: runs one device's graph for one step (whitepaper 3.1). It keeps a pending count per
// node and a ready queue: a node whose inputs have all arrived is ready; cheap ready nodes run
// inline on the current thread, expensive ones are handed to the device's inter-op pool.
// Asynchronous kernels (5.3) return their thread and call back; on a CPU device the thread that
// completes one (a Recv's sender, the MPI progress thread) continues with the inexpensive nodes
// it makes ready for up to kInlineBudgetNs and hands the others to the pool. Inexpensive: a
// kernel declared cheap (OpKernel::IsExpensive() false: Const, Identity, Send/Recv, ...) or one
// whose measured mean run time is below 2 us (TensorFlow's executor does the same with an
// 8,000-cycle threshold). A failing kernel aborts the
// step: the Rendezvous is aborted and the status, prefixed with the node's name, op and
// device, is returned.
//
// Per-node state lives in (frame, iteration) slots from the start (4.4): the root frame is
// frame 0, iteration 0; control-flow ops (Enter/Exit/NextIteration/Switch/Merge) add frames and
// iterations and propagate dead values through untaken branches.
// Thread-safety: an Executor is immutable after Create and may run several steps concurrently
// (concurrent steps, whitepaper section 7 / Figure 8).
#include <functional>
#include <memory>

#include "engine/framework/op_kernel.h"
#include "engine/graph/graph.h"
#include "engine/runtime/call_frame.h"
#include "engine/runtime/step_stats.h"

namespace fb {

class ExecutorImpl;

class Executor {
 public:
  struct Args {
    int64_t step_id = 0;
    Rendezvous* rendezvous = nullptr;
    CallFrame* call_frame = nullptr;
    StepStatsCollector* stats = nullptr;  // non-null: record every node execution
    // Non-null: the step can be cancelled. Once cancelled, each node about to run fails with
    // Cancelled instead (naming its frame and iteration), so the step ends; asynchronous
    // kernels in flight are registered with their description and withdraw on cancellation.
    CancellationManager* cancellation_manager = nullptr;
    // Where ready nodes run; default: the device's inter-op pool.
    std::function<void(std::function<void()>)> runner;
    // Where the step starts. kRunner: every ready root node goes to `runner` (cheap ones
    // together). kCaller: the thread calling RunAsync runs the inexpensive roots and what they
    // make ready, as an executor thread would, before RunAsync returns; for callers that would
    // only wait for the step (Session::Run, the master's client thread) it saves a thread
    // handoff per step. kCallerInexpensive: the caller runs only inexpensive nodes, for at most
    // kInlineBudgetNs, and hands the rest to `runner`; for threads that must not be held (the
    // MPI progress thread). With kCaller*, `done` may run before RunAsync returns.
    enum class StartOn { kRunner, kCaller, kCallerInexpensive };
    StartOn start_on = StartOn::kRunner;
  };
  using DoneCallback = std::function<void(const Status&)>;
  // The longest a thread that completes an asynchronous kernel (or starts a step with
  // kCallerInexpensive) keeps running the step's inexpensive nodes before handing them off.
  static constexpr int64_t kInlineBudgetNs = 20000;
  // A kernel declared expensive still runs inline once its measured run time is below this
  // (TensorFlow's KernelStats threshold is 8,000 cycles); the simulator's "fifo" policy uses it too.
  static constexpr int64_t kInexpensiveNs = 2000;

  // Creates kernels for every node of `graph` on `device`. Errors from kernel lookup or kernel
  // construction name the node.
  static StatusOr<std::unique_ptr<Executor>> Create(std::unique_ptr<const Graph> graph,
                                                    Device* device);
  ~Executor();
  // Runs one step; `done` is called exactly once, possibly on another thread.
  void RunAsync(const Args& args, DoneCallback done);
  // Runs one step and waits.
  Status Run(const Args& args);
  const Graph& graph() const;
  Device* device() const;

 private:
  explicit Executor(std::unique_ptr<ExecutorImpl> impl);
  std::unique_ptr<ExecutorImpl> impl_;
};

}  // namespace fb
