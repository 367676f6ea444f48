#include "mpi/worker.h"

#include <algorithm>
#include <thread>

#include "engine/graph/graph.h"
#include "mpi/mpi_status.h"

namespace fb::mpi {

// The state of one running step on this worker.
struct Worker::Step {
  explicit Step(const ClusterSpec& cluster, int rank, int64_t step_id)
      : rendezvous(cluster, rank, step_id) {}
  MpiRendezvous rendezvous;
  std::mutex mu;
  int pending = 0;
  Status status;
  DoneCallback done;
  std::vector<std::shared_ptr<Executor>> executors;  // kept alive while running
};

StatusOr<std::unique_ptr<Worker>> Worker::Create(const ClusterSpec& cluster, int rank,
                                                 const WorkerOptions& options) {
  TaskId task = cluster.TaskForRank(rank);
  if (task.task < 0)
    return InvalidArgument("rank ", rank, " has no task in cluster '", cluster.ToString(), "'");
  DeviceOptions d;
  d.num_cpu_devices = options.num_cpu_devices;
  d.threads_per_cpu = options.threads_per_cpu > 0
                          ? options.threads_per_cpu
                          : std::max(1, CoresPerLocalRank() / std::max(1, options.num_cpu_devices));
  d.job = task.job;
  d.task = task.task;
  ASSIGN_OR_RETURN(auto mgr, DeviceMgr::CreateLocal(d));
  return std::unique_ptr<Worker>(new Worker(cluster, rank, options, std::move(mgr)));
}

Worker::Worker(const ClusterSpec& cluster, int rank, const WorkerOptions& options,
               std::shared_ptr<DeviceMgr> devices)
    : cluster_(cluster), rank_(rank), options_(options), device_mgr_(std::move(devices)) {
  TaskId task = cluster_.TaskForRank(rank);
  task_name_ = "/job:" + task.job + "/replica:0/task:" + std::to_string(task.task);
}

Worker::~Worker() {
  std::map<int64_t, std::shared_ptr<Step>> steps;
  {
    std::lock_guard<std::mutex> l(mu_);
    steps = steps_;
  }
  for (auto& [id, step] : steps) step->rendezvous.StartAbort(Cancelled(task_name_, " is shutting down"));
  // Executors call back on their own threads; wait until every step has finished.
  for (;;) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (steps_.empty() && delayed_ == 0) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

DeviceSet Worker::devices() const {
  DeviceSet set;
  for (Device* d : device_mgr_->devices())
    set.push_back(DeviceDesc{d->name(), d->device_type(), d->attributes().memory_limit_bytes});
  return set;
}

Status Worker::RegisterGraph(int64_t handle, const std::map<std::string, GraphDef>& partitions) {
  std::vector<std::shared_ptr<Executor>> executors;
  for (const auto& [device_name, def] : partitions) {
    auto prefix = task_name_ + ": partition for " + device_name + ": ";
    auto device = device_mgr_->LookupDevice(device_name);
    if (!device.ok()) return device.status().WithPrefix(prefix);
    auto graph = Graph::FromGraphDef(def);
    if (!graph.ok()) return graph.status().WithPrefix(prefix);
    for (Node* n : (*graph)->nodes()) n->set_assigned_device(device_name);
    auto ex = Executor::Create(std::move(*graph), *device);
    if (!ex.ok()) return ex.status().WithPrefix(prefix);
    executors.push_back(std::move(*ex));
  }
  std::lock_guard<std::mutex> l(mu_);
  if (!graphs_.emplace(handle, std::move(executors)).second)
    return AlreadyExists(task_name_, ": graph handle ", handle, " is already registered");
  return Status::OK();
}

void Worker::RunGraph(int64_t handle, int64_t step_id, CallFrame* frame, StepStatsCollector* stats,
                      DoneCallback done, Executor::Args::StartOn start_on) {
  if (options_.delay_ms <= 0)
    return RunGraphNow(handle, step_id, frame, stats, std::move(done), start_on);
  // A straggler: the step starts late, but the worker keeps answering the master meanwhile.
  {
    std::lock_guard<std::mutex> l(mu_);
    ++delayed_;
  }
  std::thread([this, handle, step_id, frame, stats, done = std::move(done)]() mutable {
    std::this_thread::sleep_for(std::chrono::milliseconds(options_.delay_ms));
    RunGraphNow(handle, step_id, frame, stats, std::move(done), Executor::Args::StartOn::kRunner);
    std::lock_guard<std::mutex> l(mu_);
    --delayed_;
  }).detach();
}

void Worker::RunGraphNow(int64_t handle, int64_t step_id, CallFrame* frame,
                         StepStatsCollector* stats, DoneCallback done, Executor::Args::StartOn start_on) {
  auto step = std::make_shared<Step>(cluster_, rank_, step_id);
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = graphs_.find(handle);
    if (it == graphs_.end()) {
      done(NotFound(task_name_, ": no graph registered under handle ", handle));
      return;
    }
    if (aborted_.erase(step_id)) {
      done(Aborted(task_name_, ": step ", step_id, " was aborted before it started"));
      return;
    }
    step->executors = it->second;
    step->pending = static_cast<int>(step->executors.size());
    step->done = std::move(done);
    steps_[step_id] = step;
  }
  auto finish = [this, step, step_id](const Status& s) {
    if (!s.ok()) step->rendezvous.StartAbort(s);
    DoneCallback done;
    Status status;
    {
      std::lock_guard<std::mutex> l(step->mu);
      if (step->status.ok() && !s.ok()) step->status = s;
      if (--step->pending > 0) return;
      done = std::move(step->done);
      status = step->status;
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      steps_.erase(step_id);
    }
    done(status.ok() ? status : status.WithPrefix(task_name_ + ": "));
  };
  if (step->executors.empty()) {
    step->pending = 1;
    finish(Status::OK());
    return;
  }
  Executor::Args args;
  args.step_id = step_id;
  args.rendezvous = &step->rendezvous;
  args.call_frame = frame;
  args.stats = stats;
  for (size_t i = 0; i < step->executors.size(); ++i) {
    args.start_on = i + 1 == step->executors.size() ? start_on : Executor::Args::StartOn::kRunner;
    step->executors[i]->RunAsync(args, finish);
  }
}

void Worker::AbortStep(int64_t step_id, const Status& status) {
  std::shared_ptr<Step> step;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = steps_.find(step_id);
    if (it == steps_.end()) {
      aborted_.insert(step_id);
      return;
    }
    step = it->second;
  }
  step->rendezvous.StartAbort(status);
}

}  // namespace fb::mpi
