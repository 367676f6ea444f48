#include "mpi/master.h"

#include <chrono>
#include <cstdlib>
#include <optional>

#include <spdlog/spdlog.h>

#include "engine/partition/partition.h"
#include "engine/placement/placer.h"
#include "engine/runtime/session.h"
#include "engine/runtime/subgraph.h"
#include "mpi/mpi_status.h"
#include "mpi/mpi_transport.h"

namespace fb::mpi {

namespace {
using Clock = std::chrono::steady_clock;
// Step ids of distributed steps; far above those of local Sessions and tests.
std::atomic<int64_t> g_next_step_id{int64_t{1} << 40};
std::atomic<int64_t> g_next_handle{1};
// Health-check sequence numbers, unique per process so late answers to an earlier Master's pings
// never count for a later one.
std::atomic<int64_t> g_next_ping{1};

}  // namespace

struct Master::Compiled {
  int64_t handle = 0;
  std::set<int> remote_ranks;  // ranks other than 0 that hold partitions
  std::vector<DataType> feed_types;
  std::vector<PartialShape> feed_shapes;
};

// A request the master waits on: the "done" of every rank of a step, or the "registered" of
// every rank of a graph.
struct Master::PendingStep {
  int64_t step_id = 0;
  std::set<int> ranks;    // participants
  std::set<int> waiting;  // yet to answer
  Status status;          // first error
  bool aborted = false;
  std::vector<NodeExecStats> stats;  // traced steps: the ranks' node executions
  std::map<int, std::pair<int64_t, Clock::time_point>> pings;  // outstanding ping per rank
};

Master::Master(const ClusterSpec& cluster, const MasterOptions& options)
    : cluster_(cluster), options_(options), graph_(std::make_unique<Graph>()) {
  if (const char* d = std::getenv("FLOWBENCH_MPI_CALLER_DRIVES")) options_.drive_progress = std::atoi(d) != 0;
}

StatusOr<std::unique_ptr<Master>> Master::Create(const ClusterSpec& cluster,
                                                 const MasterOptions& options) {
  RETURN_IF_ERROR(cluster.CheckWorldSize(WorldSize()));
  if (WorldRank() != 0)
    return FailedPrecondition("the master runs on rank 0, not on rank ", WorldRank());
  std::unique_ptr<Master> m(new Master(cluster, options));
  ASSIGN_OR_RETURN(m->local_, Worker::Create(cluster, 0, options.local_worker));
  MpiTransport::Get()->SetControlHandler(
      [raw = m.get()](int src, const std::string& bytes) { raw->Handle(src, bytes); });
  RETURN_IF_ERROR(m->WaitForDevices());
  return m;
}

Master::~Master() {
  Shutdown();
  MpiTransport::Get()->SetControlHandler(nullptr);
}

std::string Master::TaskOf(int rank) const {
  TaskId t = cluster_.TaskForRank(rank);
  return "/job:" + t.job + "/replica:0/task:" + std::to_string(t.task) + " (rank " +
         std::to_string(rank) + ")";
}

void Master::Handle(int src, const std::string& bytes) {
  auto msg = DecodeControl(bytes);
  if (!msg.ok()) {
    spdlog::error("flowbench master: from rank {}: {}", src, msg.status().ToString());
    return;
  }
  std::shared_ptr<PendingStep> p;
  Status failure;
  bool wake = true;  // a waiter may be waiting for this message
  {
    std::lock_guard<std::mutex> l(mu_);
    if (msg->type == "devices") {
      registered_devices_[src] = msg->devices;
    } else if (msg->type == "pong") {
      last_pong_seq_[src] = std::max(last_pong_seq_[src], msg->id);
    } else if (msg->type == "done" || msg->type == "registered") {
      auto it = pending_.find(msg->type == "done" ? msg->step_id : -msg->id);
      if (it != pending_.end() && it->second->waiting.erase(src)) {
        p = it->second;
        if (!msg->status.ok() && p->status.ok()) p->status = msg->status;
        p->stats.insert(p->stats.end(), msg->stats.begin(), msg->stats.end());
        if (!msg->status.ok() && !p->aborted) failure = msg->status;
      }
      // Await wakes for the last answer only (each wake-up of the client thread costs more than
      // the rest of a null step's bookkeeping).
      wake = p != nullptr && p->waiting.empty();
    }
  }
  if (wake) cv_.notify_all(), MpiTransport::Get()->Wake();
  if (!failure.ok()) Abort(p.get(), failure);
}

Status Master::WaitForDevices() {
  auto deadline = Clock::now() + std::chrono::milliseconds(options_.registration_timeout_ms);
  std::unique_lock<std::mutex> l(mu_);
  int others = cluster_.num_tasks() - 1;
  if (!cv_.wait_until(l, deadline, [&] { return static_cast<int>(registered_devices_.size()) == others; })) {
    std::string missing;
    for (int r = 1; r <= others; ++r)
      if (!registered_devices_.count(r)) missing += " " + TaskOf(r);
    return DeadlineExceeded("workers did not register their devices within ",
                            options_.registration_timeout_ms, " ms:", missing);
  }
  devices_ = local_->devices();
  for (auto& [rank, devs] : registered_devices_) devices_.insert(devices_.end(), devs.begin(), devs.end());
  return Status::OK();
}

Status Master::Extend(const GraphDef& graph) {
  std::lock_guard<std::mutex> l(mu_);
  if (shut_down_) return Cancelled("the master is shut down");
  return graph_->Extend(graph);
}

void Master::Abort(PendingStep* p, const Status& s) {
  std::set<int> ranks;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (p->aborted) return;
    p->aborted = true;
    ranks = p->ranks;
  }
  Status reason = Aborted("step ", p->step_id, " aborted: ", s.ToString());
  for (int r : ranks) {
    if (r == 0) continue;
    MpiTransport::Get()->SendControl(r, EncodeControl({"abort", 0, p->step_id, reason}));
  }
  if (ranks.count(0)) local_->AbortStep(p->step_id, reason);
}

Status Master::Await(PendingStep* p, const std::string& what) {
  auto interval = std::chrono::milliseconds(options_.health_check_interval_ms);
  auto timeout = std::chrono::milliseconds(options_.unresponsive_timeout_ms);
  auto answered = [&] {
    std::lock_guard<std::mutex> g(mu_);
    return p->waiting.empty();
  };
  std::unique_lock<std::mutex> l(mu_);
  while (!p->waiting.empty()) {
    if (options_.drive_progress) {  // answers arrive on this thread (see MasterOptions)
      l.unlock();
      bool done = MpiTransport::Get()->DriveUntil(answered, Clock::now() + interval);
      l.lock();
      if (done) break;
    } else if (cv_.wait_for(l, interval, [&] { return p->waiting.empty(); })) {
      break;
    }
    // Health checks of the ranks still outstanding.
    Status dead;
    for (int r : std::set<int>(p->waiting)) {
      if (r == 0) continue;
      auto it = p->pings.find(r);
      if (it != p->pings.end() && last_pong_seq_[r] >= it->second.first) p->pings.erase(it), it = p->pings.end();
      if (it == p->pings.end()) {
        int64_t seq = g_next_ping.fetch_add(1);
        p->pings[r] = {seq, Clock::now()};
        MpiTransport::Get()->SendControl(r, EncodeControl({"ping", seq, 0, Status::OK()}));
      } else if (Clock::now() - it->second.second > timeout) {
        p->waiting.erase(r);
        if (dead.ok())
          dead = Unavailable("task ", TaskOf(r), " did not answer a health check within ",
                             options_.unresponsive_timeout_ms, " ms during ", what,
                             ": the rank is dead or unresponsive");
      }
    }
    if (!dead.ok()) {
      if (p->status.ok()) p->status = dead;
      l.unlock();
      Abort(p, dead);
      l.lock();
    }
  }
  return p->status;
}

StatusOr<std::unique_ptr<Graph>> Master::ExecutionGraph(const std::vector<std::string>& feeds,
                                                        const std::vector<std::string>& fetches,
                                                        const std::vector<std::string>& targets,
                                                        RewriteResult* rewrite) {
  std::unique_ptr<Graph> g = graph_->Clone();
  RewriteResult ignored;
  RETURN_IF_ERROR(RewriteGraphForExecution(g.get(), feeds, fetches, targets, rewrite ? rewrite : &ignored));
  // Feeds and fetches pass through the client's call frame, which lives on rank 0.
  for (Node* n : g->nodes())
    if (n->op() == "_Feed" || n->op() == "_Fetch") n->mutable_def()->device = devices_[0].name;
  return g;
}

StatusOr<std::shared_ptr<Master::Compiled>> Master::Compile(const std::vector<std::string>& feeds,
                                                            const std::vector<std::string>& fetches,
                                                            const std::vector<std::string>& targets) {
  auto c = std::make_shared<Compiled>();
  c->feed_shapes = DeclaredFeedShapes(*graph_, feeds);
  RewriteResult rewrite;
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, ExecutionGraph(feeds, fetches, targets, &rewrite));
  c->feed_types = rewrite.feed_types;
  RETURN_IF_ERROR(PlaceGraph(g.get(), devices_, options_.placer));
  std::map<std::string, GraphDef> parts;
  RETURN_IF_ERROR(Partition(*g, &parts));
  std::map<int, std::map<std::string, GraphDef>> by_rank;
  for (auto& [device, def] : parts) {
    int rank = cluster_.RankForDevice(device);
    if (rank < 0) return Internal("placement chose device '", device, "' that no rank hosts");
    by_rank[rank][device] = std::move(def);
  }
  c->handle = g_next_handle.fetch_add(1);
  RETURN_IF_ERROR(RegisterPartitions(c.get(), by_rank));
  return c;
}

Status Master::RegisterPartitions(Compiled* c,
                                  const std::map<int, std::map<std::string, GraphDef>>& by_rank) {
  auto pending = std::make_shared<PendingStep>();
  PendingStep& p = *pending;
  p.step_id = -c->handle;
  for (auto& [rank, parts] : by_rank)
    if (rank != 0) p.ranks.insert(rank), c->remote_ranks.insert(rank);
  p.waiting = p.ranks;
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_[p.step_id] = pending;
  }
  for (int r : p.ranks) {
    ControlMessage m{"register", c->handle, 0, Status::OK()};
    m.partitions = by_rank.at(r);
    MpiTransport::Get()->SendControl(r, EncodeControl(m));
  }
  auto local = by_rank.find(0);
  Status s = local_->RegisterGraph(c->handle, local == by_rank.end() ? std::map<std::string, GraphDef>{}
                                                                     : local->second);
  Status remote = Await(&p, "graph registration");
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_.erase(p.step_id);
  }
  RETURN_IF_ERROR(s);
  return remote;
}

Status Master::Run(const std::vector<NamedTensor>& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
  return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr);
}

Status Master::Run(const RunOptions& options, const std::vector<NamedTensor>& feeds,
                   const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs, RunMetadata* metadata) {
  std::vector<std::string> feed_names;
  std::vector<Tensor> feed_values;
  for (const auto& [name, t] : feeds) feed_names.push_back(name), feed_values.push_back(t);
  std::shared_ptr<Compiled> c;
  {
    std::string key = ExecutionSignature(feed_names, fetches, targets);
    std::unique_lock<std::mutex> l(mu_);
    if (shut_down_) return Cancelled("the master is shut down");
    auto it = compiled_.find(key);
    if (it != compiled_.end()) {
      c = it->second;
    } else {
      l.unlock();  // compiling waits for the workers' replies, delivered under mu_
      ASSIGN_OR_RETURN(c, Compile(feed_names, fetches, targets));
      l.lock();
      compiled_.emplace(key, c);
    }
  }
  for (size_t i = 0; i < feeds.size(); ++i)
    RETURN_IF_ERROR(ValidateFeed(feed_names[i], feed_values[i], c->feed_types[i], c->feed_shapes[i]));

  std::optional<MpiTransport::DrivingScope> driving;  // see MasterOptions::drive_progress
  if (options_.drive_progress) driving.emplace(MpiTransport::Get());
  auto pending = std::make_shared<PendingStep>();
  PendingStep& p = *pending;
  p.step_id = g_next_step_id.fetch_add(1);
  p.ranks = c->remote_ranks;
  p.ranks.insert(0);
  p.waiting = p.ranks;
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_[p.step_id] = pending;
  }
  ControlMessage run{"run", c->handle, p.step_id, Status::OK()};
  run.trace = options.trace;
  for (int r : c->remote_ranks) MpiTransport::Get()->SendControl(r, EncodeControl(run));
  // The workers set up their steps while rank 0 starts its partition (see Flush).
  if (options_.drive_progress) MpiTransport::Get()->Flush();
  CallFrame frame(std::move(feed_values), static_cast<int>(fetches.size()));
  StepStatsCollector local_stats;
  StepStatsCollector* stats = options.trace ? &local_stats : nullptr;
  local_->RunGraph(c->handle, p.step_id, &frame, stats, [this, pending](const Status& s) {
    PendingStep& p = *pending;
    bool abort = false, last = false;
    {
      std::lock_guard<std::mutex> l(mu_);
      p.waiting.erase(0);
      if (!s.ok() && p.status.ok()) p.status = s;
      abort = !s.ok() && !p.aborted;
      last = p.waiting.empty();
    }
    if (last) cv_.notify_all(), MpiTransport::Get()->Wake();
    if (abort) Abort(&p, s);
  }, options_.drive_progress
         // This thread drives MPI progress until the step ends: like the progress thread, it
         // runs only inexpensive nodes, so that no kernel delays the step's transfers.
         ? Executor::Args::StartOn::kCallerInexpensive
         : Executor::Args::StartOn::kCaller);  // this thread only waits for the step
  Status status = Await(&p, "step " + std::to_string(p.step_id));
  {
    std::lock_guard<std::mutex> l(mu_);
    pending_.erase(p.step_id);
  }
  ++steps_run_;
  RETURN_IF_ERROR(status);
  if (metadata != nullptr) {
    metadata->step_id = p.step_id;
    metadata->step_stats = local_stats.Take();
    std::lock_guard<std::mutex> l(mu_);
    for (NodeExecStats& n : p.stats) metadata->step_stats.push_back(std::move(n));
  }
  return frame.TakeFetches(fetches, outputs);
}

Status Master::CheckHealth() {
  int64_t seq = g_next_ping.fetch_add(1);
  for (int r = 1; r < cluster_.num_tasks(); ++r)
    MpiTransport::Get()->SendControl(r, EncodeControl({"ping", seq, 0, Status::OK()}));
  auto deadline = Clock::now() + std::chrono::milliseconds(options_.unresponsive_timeout_ms);
  std::unique_lock<std::mutex> l(mu_);
  auto all_answered = [&] {
    for (int r = 1; r < cluster_.num_tasks(); ++r)
      if (last_pong_seq_[r] < seq) return false;
    return true;
  };
  if (cv_.wait_until(l, deadline, all_answered)) return Status::OK();
  std::string missing;
  for (int r = 1; r < cluster_.num_tasks(); ++r)
    if (last_pong_seq_[r] < seq) missing += " " + TaskOf(r);
  return Unavailable("health check: no answer within ", options_.unresponsive_timeout_ms,
                     " ms from", missing);
}

void Master::Shutdown() {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  for (int r = 1; r < cluster_.num_tasks(); ++r)
    MpiTransport::Get()->SendControl(r, EncodeControl({"shutdown", 0, 0, Status::OK()}));
}

}  // namespace fb::mpi
