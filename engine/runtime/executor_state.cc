#include "engine/runtime/executor_state.h"

#include "engine/framework/tensor_allocate.h"

#include <algorithm>

namespace fb {

namespace {
// The Process loop running on this thread, if any: an asynchronous kernel that completes inside
// it (a Recv whose value was already there) continues in that loop instead of recursing, and a
// completion for another step's executor goes to the runner (no unbounded nesting).
struct InlineContext {
  const ExecutorState* state;
  std::deque<TaggedNode>* ready;
  bool inexpensive_only;
};
thread_local InlineContext* tls_inline = nullptr;
}  // namespace

IterationState::IterationState(const ExecutorImpl& impl)
    : inputs(impl.total_inputs()),
      pending(impl.initial_pending()),
      dead_count(impl.num_items(), 0) {}

void IterationState::Reset(const ExecutorImpl& impl) {
  for (int slot : filled) inputs[slot] = Entry();  // most were taken by the node that ran
  filled.clear();
  pending = impl.initial_pending();
  std::fill(dead_count.begin(), dead_count.end(), 0);
  outstanding_ops = 0;
  outstanding_frame_count = 0;
}

ExecutorState::ExecutorState(const ExecutorImpl& impl, const Executor::Args& args,
                             Executor::DoneCallback done)
    : impl_(impl), args_(args), done_(std::move(done)) {
  if (!args_.runner) {
    ThreadPool* pool = impl_.device()->inter_op_pool();
    args_.runner = [pool](std::function<void()> fn) { pool->Schedule(std::move(fn)); };
  }
  root_frame_.frame_name = "_root";
  root_frame_.iterations[0] = impl_.NewIteration();
}

ExecutorState::~ExecutorState() {
  for (auto& [iter, state] : root_frame_.iterations) impl_.RecycleIteration(std::move(state));
}

void ExecutorState::Start() {
  const std::vector<int>& roots = impl_.root_nodes();
  if (roots.empty()) {
    Finish();
    return;
  }
  TaggedNodeSeq ready;
  for (int id : roots) ready.push_back({id, &root_frame_, 0, false});
  root_frame_.iterations[0]->outstanding_ops = static_cast<int>(ready.size());
  num_outstanding_ops_ = static_cast<int>(ready.size());
  using StartOn = Executor::Args::StartOn;
  if (args_.start_on == StartOn::kRunner) return ScheduleReady(ready, nullptr);
  const bool inexpensive_only = args_.start_on == StartOn::kCallerInexpensive;
  std::deque<TaggedNode> on_caller;
  ScheduleReady(ready, &on_caller, inexpensive_only);
  // May finish the step (and delete this).
  if (!on_caller.empty()) Process(std::move(on_caller), inexpensive_only ? Executor::kInlineBudgetNs : 0);
}

namespace {

// Moves input `i` of `item` into the memory its kernel reads it from (TensorFlow's memory types:
// a device-memory value feeding a HostMemory input is copied to the host, a host value feeding a
// device-memory input is copied to the device). Copies to the host wait for the device's queued
// work; HostMemory inputs are small (shapes, axes). String tensors stay on the host.
Status MatchMemoryType(const NodeItem& item, Device* device, int i, TensorValue* v) {
  if (v->is_ref() || !v->tensor.IsInitialized() || v->tensor.dtype() == DataType::kString)
    return Status::OK();
  const bool want_host = item.kernel->input_on_host(i);
  if (want_host == InHostMemory(v->tensor)) return Status::OK();
  StatusOr<Tensor> moved = want_host ? device->CopyToHost(v->tensor)
                                     : device->CopyFromHost(v->tensor);
  if (!moved.ok())
    return moved.status().WithPrefix("copying input " + std::to_string(i) + " to " +
                                     (want_host ? "host" : "device") + " memory: ");
  v->tensor = std::move(*moved);
  return Status::OK();
}

}  // namespace

Status ExecutorState::PrepareInputs(const NodeItem& item, IterationState* iter_state,
                                    std::vector<TensorValue>* inputs,
                                    std::vector<bool>* input_dead) {
  inputs->resize(item.num_inputs);
  input_dead->assign(item.num_inputs, false);
  for (int i = 0; i < item.num_inputs; ++i) {
    Entry& e = iter_state->inputs[item.input_start + i];
    TensorValue& v = (*inputs)[i];
    if (!e.has_value) {
      (*input_dead)[i] = true;
      continue;
    }
    if (e.ref && !item.input_is_ref[i]) {
      std::lock_guard<std::mutex> l(*e.ref->mu());
      if (!e.ref->is_initialized()) {
        const Edge* edge = item.node->input_edge(i);
        return FailedPrecondition("attempting to use uninitialized variable '",
                                  edge ? edge->src->name() : "?", "' (input ", i, ")");
      }
      v.tensor = *e.ref->tensor();
    } else {
      v.tensor = std::move(e.val);
      v.ref = e.ref;
    }
    e = Entry();
    if (item.match_memory_types) RETURN_IF_ERROR(MatchMemoryType(item, impl_.device(), i, &v));
  }
  return Status::OK();
}

Status ExecutorState::ProcessOutputs(const NodeItem& item, OpKernelContext* ctx,
                                     std::vector<Entry>* outputs) {
  outputs->resize(item.num_outputs);
  if (!ctx->status().ok()) return ctx->status();
  for (int i = 0; i < item.num_outputs; ++i) {
    if (ctx->output_is_dead(i)) continue;
    TensorValue& v = (*ctx->mutable_outputs())[i];
    Entry& e = (*outputs)[i];
    if (v.ref) {
      e.ref = v.ref;
      e.has_value = true;
    } else if (v.tensor.IsInitialized()) {
      if (v.tensor.dtype() != item.kernel->output_type(i))
        return Internal("output ", i, " has dtype ", DataTypeString(v.tensor.dtype()),
                        ", expected ", DataTypeString(item.kernel->output_type(i)));
      e.val = std::move(v.tensor);  // the context ends with the node (no copy of the shape)
      e.has_value = true;
    } else {
      return Internal("kernel produced no value for output ", i);
    }
  }
  return Status::OK();
}

void ExecutorState::Process(std::deque<TaggedNode> inline_ready, int64_t budget_ns) {
  const bool inexpensive_only = budget_ns > 0;
  const int64_t deadline = inexpensive_only ? NowNs() + budget_ns : 0;
  InlineContext context{this, &inline_ready, inexpensive_only};
  struct Restore {
    InlineContext* outer;
    ~Restore() { tls_inline = outer; }
  } restore{tls_inline};
  tls_inline = &context;
  // Per-node buffers, reused from node to node (no allocation per node once they have grown).
  TaggedNode tagged;
  std::vector<TensorValue> inputs;
  std::vector<bool> input_dead, dead_outputs;
  std::vector<Entry> outputs;
  TaggedNodeSeq ready;
  while (!inline_ready.empty()) {
    if (inexpensive_only && NowNs() > deadline) {  // the budget is spent: hand the rest off
      args_.runner([this, rest = std::move(inline_ready)]() mutable { Process(std::move(rest)); });
      return;
    }
    tagged = inline_ready.front();
    inline_ready.pop_front();
    const NodeItem& item = impl_.item(tagged.id);
    IterationState* iter_state;
    {
      std::lock_guard<std::mutex> l(tagged.frame->mu);
      iter_state = tagged.frame->GetIteration(tagged.iter);
    }
    Status s = args_.cancellation_manager && args_.cancellation_manager->IsCancelled()
                   ? CancelledNode(tagged)
                   : PrepareInputs(item, iter_state, &inputs, &input_dead);
    outputs.clear();
    dead_outputs.assign(item.num_outputs, false);
    bool skip_kernel = tagged.is_dead && !item.is_transfer;
    if (s.ok() && skip_kernel) {
      outputs.resize(item.num_outputs);
      dead_outputs.assign(item.num_outputs, true);
    } else if (s.ok()) {
      OpKernelContext::Params params;
      params.step_id = args_.step_id;
      params.device = impl_.device();
      params.kernel = item.kernel.get();
      params.inputs = &inputs;
      params.input_is_dead = &input_dead;
      params.is_input_dead = tagged.is_dead;
      params.frame_iter = {tagged.frame->frame_id, tagged.iter};
      params.rendezvous = args_.rendezvous;
      params.call_frame = args_.call_frame;
      params.runner = &args_.runner;
      params.cancellation_manager = args_.cancellation_manager;
      if (item.is_async) {
        // The kernel finishes on another thread; its completion continues propagation there.
        struct AsyncState {
          OpKernelContext::Params params;
          std::vector<TensorValue> inputs;
          std::vector<bool> input_dead;
          std::unique_ptr<OpKernelContext> ctx;
          int64_t start_ns;
          CancellationToken token;
        };
        auto* st = new AsyncState{params, std::move(inputs), input_dead, nullptr, NowNs(),
                                  RegisterInFlight(tagged)};
        st->params.inputs = &st->inputs;
        st->params.input_is_dead = &st->input_dead;
        st->ctx = std::make_unique<OpKernelContext>(&st->params);
        impl_.device()->ComputeAsync(item.kernel->AsAsync(), st->ctx.get(), [this, st, tagged]() {
          const NodeItem& item = impl_.item(tagged.id);
          if (args_.cancellation_manager) args_.cancellation_manager->DeregisterCallback(st->token);
          std::vector<Entry> outs;
          Status s = ProcessOutputs(item, st->ctx.get(), &outs);
          std::vector<bool> dead(item.num_outputs, false);
          for (int i = 0; i < item.num_outputs; ++i) dead[i] = st->ctx->output_is_dead(i);
          if (args_.stats) {
            NodeExecStats ns{item.node->name(), item.node->op(), impl_.device()->name(),
                             CurrentThreadOsId(), st->start_ns, NowNs(), 0, args_.step_id};
            for (const Entry& e : outs) ns.output_bytes += e.has_value && !e.ref ? e.val.TotalBytes() : 0;
            AnnotateTransfer(item.node->def(), 0, &ns);
            args_.stats->Record(std::move(ns));
          }
          TaggedNodeSeq ready;
          if (s.ok()) PropagateOutputs(tagged, item, &outs, &dead, &ready);
          delete st;
          AsyncNodeDone(s, tagged, ready);
        });
        inputs = std::vector<TensorValue>();
        continue;
      }
      int64_t start_ns = args_.stats || item.is_expensive ? NowNs() : 0;
      OpKernelContext ctx(&params);
      impl_.device()->Compute(item.kernel.get(), &ctx);
      // A traced step times each node to the end of its device work (a GPU kernel only queues
      // work): the node's end waits for the device, as TensorFlow's traced steps do.
      if (args_.stats && ctx.status().ok()) ctx.SetStatus(impl_.device()->Sync());
      if (item.is_expensive) impl_.RecordCost(tagged.id, NowNs() - start_ns);
      s = ProcessOutputs(item, &ctx, &outputs);
      for (int i = 0; i < item.num_outputs; ++i) dead_outputs[i] = ctx.output_is_dead(i);
      if (args_.stats) {
        NodeExecStats ns{item.node->name(), item.node->op(), impl_.device()->name(),
                         CurrentThreadOsId(), start_ns, NowNs(), 0, args_.step_id};
        for (const Entry& e : outputs) ns.output_bytes += e.has_value && !e.ref ? e.val.TotalBytes() : 0;
        AnnotateTransfer(item.node->def(),
                         inputs.empty() || inputs[0].is_ref() ? 0 : inputs[0].tensor.TotalBytes(), &ns);
        args_.stats->Record(std::move(ns));
      }
    }
    inputs.clear();
    ready.clear();
    if (s.ok()) PropagateOutputs(tagged, item, &outputs, &dead_outputs, &ready);
    if (NodeDone(s, tagged, ready, &inline_ready, inexpensive_only)) {
      Finish();
      return;
    }
  }
}

namespace {
// The frame name of an Enter node, from a child frame's key "parent_id;parent_iter;name".
std::string FrameNameOf(const FrameState& frame) {
  size_t first = frame.frame_name.find(';');
  size_t second = first == std::string::npos ? first : frame.frame_name.find(';', first + 1);
  return second == std::string::npos ? frame.frame_name : frame.frame_name.substr(second + 1);
}
}  // namespace

Status ExecutorState::CancelledNode(const TaggedNode& tagged) const {
  if (tagged.frame == &root_frame_) return Cancelled("the step was cancelled before it ran");
  return Cancelled("the step was cancelled before it ran in frame '", FrameNameOf(*tagged.frame),
                   "', iteration ", tagged.iter);
}

CancellationToken ExecutorState::RegisterInFlight(const TaggedNode& tagged) {
  CancellationManager* cm = args_.cancellation_manager;
  if (cm == nullptr) return -1;
  const Node* node = impl_.item(tagged.id).node;
  std::string what = node->op() + " '" + node->name() + "' on " + impl_.device()->name();
  if (tagged.frame != &root_frame_)
    what += " (frame '" + FrameNameOf(*tagged.frame) + "', iteration " +
            std::to_string(tagged.iter) + ")";
  CancellationToken token = cm->get_cancellation_token();
  cm->RegisterCallback(token, std::move(what), nullptr);
  return token;
}

void ExecutorState::AsyncNodeDone(const Status& s, const TaggedNode& tagged, const TaggedNodeSeq& ready) {
  if (tls_inline != nullptr && tls_inline->state == this) {  // completed inside our Process loop
    if (NodeDone(s, tagged, ready, tls_inline->ready, tls_inline->inexpensive_only)) Finish();
    return;
  }
  // Continue here (on CPU devices, outside other executors' loops) with what is inexpensive.
  const bool continue_here = tls_inline == nullptr && impl_.device()->device_type() == DEVICE_CPU;
  std::deque<TaggedNode> here;
  if (NodeDone(s, tagged, ready, continue_here ? &here : nullptr, /*inexpensive_only=*/true)) {
    Finish();
  } else if (!here.empty()) {
    Process(std::move(here), Executor::kInlineBudgetNs);
  }
}

bool ExecutorState::NodeDone(const Status& s, const TaggedNode& tagged, const TaggedNodeSeq& ready,
                             std::deque<TaggedNode>* inline_ready, bool inexpensive_only) {
  if (!s.ok()) {
    const NodeItem& item = impl_.item(tagged.id);
    Status annotated = s.WithPrefix(item.node->op() + " '" + item.node->name() + "' on " +
                                    impl_.device()->name() + ": ");
    bool first = false;
    {
      std::lock_guard<std::mutex> l(status_mu_);
      if (status_.ok()) {
        status_ = annotated;
        first = true;
      }
    }
    if (first) {
      aborted_ = true;
      if (args_.rendezvous) args_.rendezvous->StartAbort(annotated);
    }
  }
  bool completed;
  if (aborted_ || ready.empty()) {
    completed = num_outstanding_ops_.fetch_sub(1) == 1;
  } else {
    num_outstanding_ops_.fetch_add(static_cast<int>(ready.size()) - 1);
    ScheduleReady(ready, inline_ready, inexpensive_only);
    completed = false;
  }
  return completed;
}

void ExecutorState::ScheduleReady(const TaggedNodeSeq& ready, std::deque<TaggedNode>* inline_ready,
                                  bool inexpensive_only) {
  if (ready.empty()) return;
  if (inline_ready == nullptr) {
    // Nothing runs on this thread: the inexpensive nodes go to one thread together and each
    // expensive node to one of its own, so that a step start or an arriving tensor wakes one
    // thread, not one per ready node.
    std::deque<TaggedNode> cheap;
    for (const TaggedNode& t : ready) {
      if (t.is_dead || !impl_.IsExpensive(t.id)) cheap.push_back(t);
      else args_.runner([this, t]() { Process({t}); });
    }
    if (!cheap.empty()) args_.runner([this, cheap = std::move(cheap)]() mutable { Process(std::move(cheap)); });
    return;
  }
  // Keep inexpensive nodes and (unless inexpensive_only) one expensive node on this thread; hand
  // the other expensive ones out.
  const TaggedNode* curr_expensive = nullptr;
  for (const TaggedNode& t : ready) {
    if (t.is_dead || !impl_.IsExpensive(t.id)) {
      inline_ready->push_back(t);
    } else if (inexpensive_only) {
      args_.runner([this, t]() { Process({t}); });
    } else {
      if (curr_expensive) {
        TaggedNode other = *curr_expensive;
        args_.runner([this, other]() { Process({other}); });
      }
      curr_expensive = &t;
    }
  }
  if (curr_expensive) {
    if (inline_ready->empty()) {
      inline_ready->push_back(*curr_expensive);
    } else {
      TaggedNode other = *curr_expensive;
      args_.runner([this, other]() { Process({other}); });
    }
  }
}

void ExecutorState::Finish() {
  Executor::DoneCallback done = std::move(done_);
  Status s;
  {
    std::lock_guard<std::mutex> l(status_mu_);
    s = status_;
  }
  delete this;
  done(s);
}

void ExecutorImpl::RunAsync(const Executor::Args& args, Executor::DoneCallback done) const {
  (new ExecutorState(*this, args, std::move(done)))->Start();
}

}  // namespace fb
