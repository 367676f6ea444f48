#include "mpi/trainers.h"

#include <thread>

#include "engine/client/state_ops.h"

namespace fb::mpi {

Status AsyncTrain(Master* master, const DataParallelGraph& graph, int steps_per_replica,
                  const ReplicaFeedFn& feeds) {
  std::vector<std::future<Status>> replicas;
  for (size_t i = 0; i < graph.train_targets.size(); ++i) {
    replicas.push_back(std::async(std::launch::async, [&, i]() -> Status {
      for (int64_t step = 0; step < steps_per_replica; ++step) {
        std::vector<Tensor> out;
        RETURN_IF_ERROR(master->Run(feeds(static_cast<int>(i), step), {}, {graph.train_targets[i]}, &out));
      }
      return Status::OK();
    }));
  }
  Status first;
  for (auto& r : replicas) {
    Status s = r.get();
    if (first.ok()) first = s;
  }
  return first;
}

BackupWorkerTrainer::BackupWorkerTrainer(Master* master, const DataParallelGraph& graph,
                                         int num_to_apply, ReplicaFeedFn feeds)
    : master_(master),
      graph_(graph),
      num_to_apply_(num_to_apply),
      feeds_(std::move(feeds)),
      busy_(graph.train_targets.size(), false),
      launched_step_(graph.train_targets.size(), -1) {}

BackupWorkerTrainer::~BackupWorkerTrainer() { (void)Drain(); }

void BackupWorkerTrainer::LaunchIdleLocked(int64_t step) {
  for (size_t i = 0; i < busy_.size(); ++i) {
    // A busy replica is a straggler of an earlier step: its gradient will be dropped, and it
    // joins this step once it is done.
    if (busy_[i] || launched_step_[i] == step) continue;
    busy_[i] = true;
    launched_step_[i] = step;
    int r = static_cast<int>(i);
    running_.push_back(std::async(std::launch::async, [this, r, step] {
      std::vector<Tensor> out;
      Status s = master_->Run(feeds_(r, step), {}, {graph_.train_targets[r]}, &out);
      std::lock_guard<std::mutex> l(mu_);
      busy_[r] = false;
      if (!s.ok() && status_.ok()) status_ = s;
      if (s.ok() && step == current_step_) finished_.push_back(r);
      cv_.notify_all();
    }));
  }
}

StatusOr<std::vector<int>> BackupWorkerTrainer::Step(int64_t step) {
  std::vector<int> used;
  {
    std::unique_lock<std::mutex> l(mu_);
    current_step_ = step;
    finished_.clear();
    auto can_launch = [&] {
      for (size_t i = 0; i < busy_.size(); ++i)
        if (!busy_[i] && launched_step_[i] != step) return true;
      return false;
    };
    for (;;) {
      LaunchIdleLocked(step);
      cv_.wait(l, [&] {
        return !status_.ok() || static_cast<int>(finished_.size()) >= num_to_apply_ || can_launch();
      });
      RETURN_IF_ERROR(status_);
      if (static_cast<int>(finished_.size()) >= num_to_apply_) break;
    }
    used.assign(finished_.begin(), finished_.begin() + num_to_apply_);
    current_step_ = -1;  // later finishers of this step are stragglers
  }
  std::vector<Master::NamedTensor> weights;
  for (size_t i = 0; i < graph_.weight_feeds.size(); ++i) {
    bool applied = std::find(used.begin(), used.end(), static_cast<int>(i)) != used.end();
    weights.push_back({graph_.weight_feeds[i], Tensor::Scalar<float>(applied ? 1.f / num_to_apply_ : 0.f)});
  }
  std::vector<Tensor> out;
  RETURN_IF_ERROR(master_->Run(weights, {}, {graph_.apply_target}, &out));
  return used;
}

Status BackupWorkerTrainer::Drain() {
  std::vector<std::future<void>> running;
  {
    std::lock_guard<std::mutex> l(mu_);
    running.swap(running_);
  }
  for (auto& f : running) f.wait();
  std::lock_guard<std::mutex> l(mu_);
  return status_;
}

}  // namespace fb::mpi
