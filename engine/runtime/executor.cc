#include "engine/runtime/executor.h"

#include <algorithm>
#include <condition_variable>

#include "engine/runtime/executor_impl.h"
#include "engine/runtime/executor_state.h"

namespace fb {

ExecutorImpl::ExecutorImpl(std::unique_ptr<const Graph> graph, Device* device)
    : graph_(std::move(graph)), device_(device) {}
ExecutorImpl::~ExecutorImpl() = default;

std::unique_ptr<IterationState> ExecutorImpl::NewIteration() const {
  {
    std::lock_guard<std::mutex> l(pool_mu_);
    if (!iteration_pool_.empty()) {
      std::unique_ptr<IterationState> it = std::move(iteration_pool_.back());
      iteration_pool_.pop_back();
      return it;
    }
  }
  return std::make_unique<IterationState>(*this);
}

void ExecutorImpl::RecycleIteration(std::unique_ptr<IterationState> iteration) const {
  iteration->Reset(*this);  // outside the lock: frees the values left in the slots
  std::lock_guard<std::mutex> l(pool_mu_);
  if (iteration_pool_.size() < kMaxPooledIterations)
    iteration_pool_.push_back(std::move(iteration));
}

Status ExecutorImpl::Initialize() {
  items_.resize(graph_->num_node_ids());
  for (Node* n : graph_->nodes()) {
    NodeItem& item = items_[n->id()];
    item.node = n;
    auto kernel = KernelRegistry::Global()->CreateKernel(device_, n->def());
    if (!kernel.ok())
      return kernel.status().WithPrefix("on device " + device_->name() + ": ");
    item.kernel = std::move(*kernel);
    item.is_async = item.kernel->AsAsync() != nullptr;
    item.is_expensive = item.kernel->IsExpensive();
    item.num_inputs = n->num_inputs();
    item.num_outputs = n->num_outputs();
    item.input_start = total_inputs_;
    total_inputs_ += item.num_inputs;
    for (int i = 0; i < item.num_inputs; ++i) item.input_is_ref.push_back(n->input_is_ref(i));
    const std::string& op = n->op();
    item.is_merge = op == "Merge";
    item.is_switch = op == "Switch";
    item.is_enter = op == "Enter";
    item.is_exit = op == "Exit";
    item.is_next_iteration = op == "NextIteration";
    item.is_transfer = op == "_Send" || op == "_Recv";
    item.is_control_trigger = op == "ControlTrigger";
    // _Send and _Fetch copy any tensor to the host themselves.
    item.match_memory_types =
        !device_->GetAllocator()->IsHostMemory() && !item.is_transfer && op != "_Fetch";
    if (item.is_enter) {
      (void)GetNodeAttr(n->def().attrs, "frame_name", &item.frame_name);
      (void)GetNodeAttr(n->def().attrs, "is_constant", &item.is_constant_enter);
      (void)GetNodeAttr(n->def().attrs, "parallel_iterations", &item.parallel_iterations);
      ++frame_input_count_[item.frame_name];
    }
    for (const Edge* e : n->in_edges())
      if (e->IsControlEdge()) ++item.num_control_inputs;
    item.initial_pending = item.is_merge ? (item.num_control_inputs << 1) | 1
                                         : static_cast<int>(n->in_edges().size());
    for (const Edge* e : n->out_edges())
      item.out_edges.push_back({e->dst->id(), e->src_output, e->dst_input});
    std::vector<bool> seen(static_cast<size_t>(n->num_outputs()), false);
    for (auto e = item.out_edges.rbegin(); e != item.out_edges.rend(); ++e) {
      if (e->output_slot == kControlSlot || seen[static_cast<size_t>(e->output_slot)]) continue;
      seen[static_cast<size_t>(e->output_slot)] = true;
      e->last_use = true;
    }
    if (n->in_edges().empty()) root_nodes_.push_back(n->id());
  }
  initial_pending_.assign(items_.size(), 0);
  for (size_t i = 0; i < items_.size(); ++i)
    if (items_[i].node) initial_pending_[i] = items_[i].initial_pending;
  costs_ = std::make_unique<CostWindow[]>(items_.size());
  for (size_t i = 0; i < items_.size(); ++i)
    for (auto& sample : costs_[i].samples) sample.store(kNoSample, std::memory_order_relaxed);
  return Status::OK();
}

void ExecutorImpl::RecordCost(int id, int64_t ns) const {
  CostWindow& w = costs_[id];
  uint32_t slot = w.next.fetch_add(1, std::memory_order_relaxed) % kCostWindow;
  w.samples[slot].store(static_cast<int32_t>(std::min<int64_t>(ns, kNoSample - 1)), std::memory_order_relaxed);
  int64_t shortest = kUnmeasured;
  for (const auto& sample : w.samples)
    shortest = std::min<int64_t>(shortest, sample.load(std::memory_order_relaxed));
  w.estimate.store(shortest, std::memory_order_relaxed);  // racing updates may miss one sample
}

Executor::Executor(std::unique_ptr<ExecutorImpl> impl) : impl_(std::move(impl)) {}
Executor::~Executor() = default;

StatusOr<std::unique_ptr<Executor>> Executor::Create(std::unique_ptr<const Graph> graph,
                                                     Device* device) {
  auto impl = std::make_unique<ExecutorImpl>(std::move(graph), device);
  RETURN_IF_ERROR(impl->Initialize());
  return std::unique_ptr<Executor>(new Executor(std::move(impl)));
}

void Executor::RunAsync(const Args& args, DoneCallback done) {
  impl_->RunAsync(args, std::move(done));
}

Status Executor::Run(const Args& args) {
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  Status result;
  Args on_caller = args;
  on_caller.start_on = Args::StartOn::kCaller;
  RunAsync(on_caller, [&](const Status& s) {
    std::lock_guard<std::mutex> l(mu);
    result = s;
    finished = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return finished; });
  return result;
}

const Graph& Executor::graph() const { return impl_->graph(); }
Device* Executor::device() const { return impl_->device(); }

}  // namespace fb
