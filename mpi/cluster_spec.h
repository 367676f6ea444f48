#pragma once
// ClusterSpec: the jobs and tasks of a distributed run (whitepaper section 3: client, master,
// worker processes) derived from `mpirun -np N`: "--cluster ps=1,worker=3" assigns ranks to tasks
// in order (ps:0 is rank 0, worker:0 rank 1, ...); without --cluster every rank is a worker task.
// Rank 0 also hosts the client and the master. Each task's devices are named
// /job:J/replica:0/task:T/device:CPU:i.
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/framework/status.h"

namespace fb::mpi {

struct TaskId {
  std::string job;
  int task = 0;
  bool operator==(const TaskId& o) const { return job == o.job && task == o.task; }
};

class ClusterSpec {
 public:
  // Parses "ps=1,worker=3" (job=count, in rank order). InvalidArgument naming the bad field.
  static StatusOr<ClusterSpec> Parse(const std::string& spec);
  // A JSON file {"jobs": [{"name": "ps", "tasks": 1}, {"name": "worker", "tasks": 3}]}.
  static StatusOr<ClusterSpec> FromFile(const std::string& path);
  // Every rank a worker.
  static ClusterSpec AllWorkers(int num_ranks);

  int num_tasks() const;
  // InvalidArgument when the spec needs another number of ranks than `world_size`.
  Status CheckWorldSize(int world_size) const;
  TaskId TaskForRank(int rank) const;
  // -1 if no such task.
  int RankForTask(const TaskId& task) const;
  // Rank hosting a device name (full or with at least job and task); -1 if none. Remembers
  // the names it has parsed (every remote Send asks, every step). Thread-safe.
  int RankForDevice(const std::string& device_name) const;
  std::vector<int> RanksOfJob(const std::string& job) const;
  std::string DeviceName(int rank, const std::string& type = "CPU", int id = 0) const;
  const std::vector<std::pair<std::string, int>>& jobs() const { return jobs_; }
  std::string ToString() const;  // "ps=1,worker=3"

 private:
  std::vector<std::pair<std::string, int>> jobs_;
  struct RankCache {
    std::mutex mu;
    std::unordered_map<std::string, int> ranks;
  };
  // Shared by copies (they describe the same cluster; ClusterSpec is immutable once built).
  std::shared_ptr<RankCache> rank_cache_ = std::make_shared<RankCache>();
};

}  // namespace fb::mpi
