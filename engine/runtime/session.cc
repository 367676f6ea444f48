#include "engine/runtime/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>

#include "engine/partition/partition.h"
#include "engine/passes/graph_pass.h"
#include "engine/placement/placer.h"
#include "engine/runtime/local_rendezvous.h"
#include "engine/runtime/subgraph.h"

namespace fb {

namespace {
std::atomic<int64_t> g_next_step_id{1};

// Cancels a step that ran past options.timeout_in_ms: withdraws what its kernels wait for,
// aborts its Recvs and returns the DeadlineExceeded status that Run reports (also given to
// options.on_deadline).
Status CancelStep(const RunOptions& options, CancellationManager* cancellation,
                  LocalRendezvous* rendezvous) {
  std::vector<std::string> in_flight = cancellation->StartCancel();
  std::string pending;
  for (const std::string& p : in_flight) pending += (pending.empty() ? "" : ", ") + p;
  Status deadline = DeadlineExceeded(
      "Session::Run: the step did not finish within ", options.timeout_in_ms,
      " ms; pending nodes: ",
      pending.empty() ? "none waiting (nodes were still running)" : pending);
  rendezvous->StartAbort(deadline);
  if (options.on_deadline) options.on_deadline(deadline);
  return deadline;
}

DeviceSet DescribeDevices(const DeviceMgr& mgr) {
  DeviceSet set;
  for (Device* d : mgr.devices())
    set.push_back(DeviceDesc{d->name(), d->device_type(), d->attributes().memory_limit_bytes});
  return set;
}
// Stateful nodes (Variables) keep the device that an earlier signature's placement gave them,
// so every signature sees the same variable (TensorFlow's stateful placements). Called with the
// Session's mutex held.
void PinStatefulNodes(const std::map<std::string, std::shared_ptr<PartitionedExecutors>>& cached,
                      Graph* g) {
  std::map<std::string, std::string> placed;
  for (const auto& [signature, ex] : cached)
    for (const auto& e : ex->executors)
      for (Node* n : e->graph().nodes())
        if (n->is_stateful() && n->op()[0] != '_') placed.emplace(n->name(), e->device()->name());
  for (Node* n : g->nodes())
    if (auto it = placed.find(n->name()); it != placed.end()) n->set_assigned_device(it->second);
}

// Places the whole client graph (so colocation groups are complete: a Variable, its optimizer
// slots and their update ops) with earlier stateful placements pinned, gives every node of the
// signature's graph `g` its full-graph device, then places what is left (_Feed, _Fetch, nodes
// passes added).
Status PlaceLikeFullGraph(const std::map<std::string, std::shared_ptr<PartitionedExecutors>>& cached,
                          const Graph& client_graph, const DeviceSet& devices,
                          const std::string& placer, const PlacerOptions& options, Graph* g) {
  std::unique_ptr<Graph> full = client_graph.Clone();
  PinStatefulNodes(cached, full.get());
  RETURN_IF_ERROR(PlaceGraph(full.get(), devices, placer, options));
  for (Node* n : g->nodes())
    if (Node* f = full->FindNode(n->name()); f && f->op() == n->op())
      n->set_assigned_device(f->assigned_device());
  return PlaceGraph(g, devices, placer, options);
}
}  // namespace

Status ValidateFeed(const std::string& name, const Tensor& t, DataType want,
                    const PartialShape& shape) {
  if (!t.IsInitialized()) return InvalidArgument("feed '", name, "' is an empty tensor");
  if (t.dtype() != want)
    return InvalidArgument("feed '", name, "' must be ", DataTypeString(want), ", got ",
                           DataTypeString(t.dtype()));
  if (!shape) return Status::OK();
  bool ok = shape->rank() == t.dims();
  for (int i = 0; ok && i < t.dims(); ++i)
    ok = shape->dim_size(i) < 0 || shape->dim_size(i) == t.dim_size(i);
  if (!ok)
    return InvalidArgument("feed '", name, "' must have shape ", shape->DebugString(), ", got ",
                           t.shape().DebugString());
  return Status::OK();
}

Session::Session(const SessionOptions& options, std::shared_ptr<DeviceMgr> mgr)
    : options_(options), device_mgr_(std::move(mgr)), graph_(std::make_unique<Graph>()) {}

Session::~Session() = default;

StatusOr<std::unique_ptr<Session>> Session::Create(const SessionOptions& options) {
  std::shared_ptr<DeviceMgr> mgr = options.device_mgr;
  if (!mgr) {
    ASSIGN_OR_RETURN(mgr, DeviceMgr::CreateLocal(options.device_options));
  }
  return std::unique_ptr<Session>(new Session(options, std::move(mgr)));
}

Status Session::Extend(const GraphDef& graph) {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return Cancelled("Session is closed");
  return graph_->Extend(graph);
}

size_t Session::num_cached_executors() const {
  std::lock_guard<std::mutex> l(mu_);
  return executors_.size();
}

StatusOr<std::shared_ptr<PartitionedExecutors>> Session::CreateExecutors(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  std::unique_ptr<Graph> g = graph_->Clone();
  auto result = std::make_shared<PartitionedExecutors>();
  // Declared shapes of fed Placeholders, checked on every Run.
  result->feed_shapes = DeclaredFeedShapes(*g, feeds);
  RewriteResult rewrite;
  RETURN_IF_ERROR(RewriteGraphForExecution(g.get(), feeds, fetches, targets, &rewrite));
  result->feed_types = rewrite.feed_types;
  result->fetch_types = rewrite.fetch_types;
  result->nodes_pruned = rewrite.nodes_pruned;
  PassContext pass_ctx;
  pass_ctx.devices = DescribeDevices(*device_mgr_);
  std::vector<PassReport> reports;
  const std::vector<std::string> passes = PassesToRun(options_.passes, options_.default_passes);
  RETURN_IF_ERROR(RunGraphPasses(passes, PassPhase::kBeforePlacement, g.get(), pass_ctx, &reports));
  RETURN_IF_ERROR(PlaceLikeFullGraph(executors_, *graph_, pass_ctx.devices, options_.placer,
                                     PlacerOptions{options_.placer_seed}, g.get()));
  RETURN_IF_ERROR(RunGraphPasses(passes, PassPhase::kAfterPlacement, g.get(), pass_ctx, &reports));
  for (const PassReport& r : reports) {
    const bool requested =
        std::find(options_.passes.begin(), options_.passes.end(), r.pass) != options_.passes.end();
    if (requested || r.num_changes > 0) result->pass_reports.push_back(r.Summary());
  }
  std::map<std::string, GraphDef> parts;
  PartitionStats partition_stats;
  RETURN_IF_ERROR(Partition(*g, &parts, &partition_stats));
  result->num_send_recv_pairs = partition_stats.num_send_recv_pairs;
  for (auto& [device_name, def] : parts) {
    ASSIGN_OR_RETURN(Device * device, device_mgr_->LookupDevice(device_name));
    ASSIGN_OR_RETURN(std::unique_ptr<Graph> part, Graph::FromGraphDef(def));
    for (Node* n : part->nodes()) n->set_assigned_device(device_name);
    ASSIGN_OR_RETURN(std::unique_ptr<Executor> ex, Executor::Create(std::move(part), device));
    result->executors.push_back(std::move(ex));
  }
  return result;
}

StatusOr<std::shared_ptr<PartitionedExecutors>> Session::GetOrCreateExecutors(
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  std::string key = ExecutionSignature(feeds, fetches, targets);
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return Cancelled("Session is closed");
  auto it = executors_.find(key);
  if (it != executors_.end()) return it->second;
  ASSIGN_OR_RETURN(auto ex, CreateExecutors(feeds, fetches, targets));
  executors_[key] = ex;
  return ex;
}

Status Session::Run(const std::vector<NamedTensor>& feeds, const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr);
}

Status Session::Run(const RunOptions& options, const std::vector<NamedTensor>& feeds,
                    const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs, RunMetadata* metadata) {
  if (outputs == nullptr && !fetches.empty()) {
    return InvalidArgument("Session::Run: ", fetches.size(), " fetches but no outputs vector");
  }
  std::vector<Tensor> ignored;
  if (outputs == nullptr) outputs = &ignored;
  std::vector<std::string> feed_names;
  std::vector<Tensor> feed_values;
  for (const auto& [name, t] : feeds) {
    feed_names.push_back(name);
    feed_values.push_back(t);
  }
  ASSIGN_OR_RETURN(std::shared_ptr<PartitionedExecutors> ex,
                   GetOrCreateExecutors(feed_names, fetches, targets));
  for (size_t i = 0; i < feeds.size(); ++i)
    RETURN_IF_ERROR(ValidateFeed(feed_names[i], feed_values[i], ex->feed_types[i], ex->feed_shapes[i]));

  CallFrame frame(std::move(feed_values), static_cast<int>(fetches.size()));
  LocalRendezvous rendezvous;
  StepStatsCollector stats;
  Executor::Args args;
  args.step_id = g_next_step_id.fetch_add(1);
  args.rendezvous = &rendezvous;
  args.call_frame = &frame;
  args.stats = options.trace ? &stats : nullptr;
  if (metadata)
    for (Device* d : device_mgr_->devices()) d->GetAllocator()->ResetPeak();

  CancellationManager cancellation;
  if (options.timeout_in_ms > 0) args.cancellation_manager = &cancellation;
  std::mutex mu;
  std::condition_variable cv;
  int pending = static_cast<int>(ex->executors.size());
  Status status;
  for (size_t i = 0; i < ex->executors.size(); ++i) {
    // This thread waits for the step anyway: it starts the last partition itself, unless it
    // must watch a deadline (a loop that never ends would keep it).
    const bool caller = i + 1 == ex->executors.size() && options.timeout_in_ms <= 0;
    args.start_on = caller ? Executor::Args::StartOn::kCaller : Executor::Args::StartOn::kRunner;
    ex->executors[i]->RunAsync(args, [&](const Status& s) {
      if (!s.ok()) rendezvous.StartAbort(s);
      std::lock_guard<std::mutex> l(mu);
      if (status.ok() && !s.ok()) status = s;
      if (--pending == 0) cv.notify_all();
    });
  }
  Status deadline;
  {
    std::unique_lock<std::mutex> l(mu);
    if (options.timeout_in_ms > 0 &&
        !cv.wait_for(l, std::chrono::milliseconds(options.timeout_in_ms),
                     [&] { return pending == 0; })) {
      l.unlock();
      deadline = CancelStep(options, &cancellation, &rendezvous);
      l.lock();
    }
    cv.wait(l, [&] { return pending == 0; });
  }
  if (metadata) {
    metadata->step_id = args.step_id;
    metadata->step_stats = stats.Take();
    metadata->bytes_transferred = rendezvous.bytes_sent();
    metadata->pass_reports = ex->pass_reports;
    metadata->num_send_recv_pairs = ex->num_send_recv_pairs;
    for (Device* d : device_mgr_->devices())
      metadata->peak_bytes[d->name()] = d->GetAllocator()->GetStats().peak_bytes_in_use;
  }
  if (!deadline.ok()) {
    if (status.ok()) return deadline;
    return DeadlineExceeded(deadline.message(), "; the step stopped at ", status.message());
  }
  RETURN_IF_ERROR(status);
  return frame.TakeFetches(fetches, outputs);
}

Status Session::Reset(const std::vector<std::string>& containers) {
  for (const auto& c : containers) device_mgr_->ClearContainer(c);
  return Status::OK();
}

Status Session::Close() {
  std::lock_guard<std::mutex> l(mu_);
  closed_ = true;
  executors_.clear();
  return Status::OK();
}

}  // namespace fb
