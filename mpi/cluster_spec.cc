#include "mpi/cluster_spec.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/framework/device_name.h"

namespace fb::mpi {

StatusOr<ClusterSpec> ClusterSpec::Parse(const std::string& spec) {
  ClusterSpec c;
  std::stringstream ss(spec);
  for (std::string field; std::getline(ss, field, ',');) {
    size_t eq = field.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("cluster spec '", spec, "': field '", field, "' is not job=count");
    std::string job = field.substr(0, eq), count = field.substr(eq + 1);
    if (count.empty() || count.size() > 6 || count.find_first_not_of("0123456789") != std::string::npos)
      return InvalidArgument("cluster spec '", spec, "': task count of '", job, "' is not a number");
    for (const auto& [j, n] : c.jobs_)
      if (j == job) return InvalidArgument("cluster spec '", spec, "': job '", job, "' twice");
    int n = std::stoi(count);
    if (n < 1) return InvalidArgument("cluster spec '", spec, "': job '", job, "' has no tasks");
    c.jobs_.emplace_back(job, n);
  }
  if (c.jobs_.empty()) return InvalidArgument("empty cluster spec");
  return c;
}

StatusOr<ClusterSpec> ClusterSpec::FromFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open cluster spec file '", path, "'");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("jobs") || !j["jobs"].is_array())
    return InvalidArgument("cluster spec file '", path, "' must be JSON with a 'jobs' list");
  std::string spec;
  for (const auto& job : j["jobs"]) {
    if (!job.is_object() || !job.contains("name") || !job.contains("tasks") ||
        !job["name"].is_string() || !job["tasks"].is_number_integer())
      return InvalidArgument("cluster spec file '", path, "': each job needs 'name' and 'tasks'");
    spec += (spec.empty() ? "" : ",") + job["name"].get<std::string>() + "=" +
            std::to_string(job["tasks"].get<int>());
  }
  auto c = Parse(spec);
  if (!c.ok()) return c.status().WithPrefix("cluster spec file '" + path + "': ");
  return c;
}

ClusterSpec ClusterSpec::AllWorkers(int num_ranks) {
  ClusterSpec c;
  c.jobs_.emplace_back("worker", num_ranks);
  return c;
}

int ClusterSpec::num_tasks() const {
  int n = 0;
  for (const auto& [j, c] : jobs_) n += c;
  return n;
}

Status ClusterSpec::CheckWorldSize(int world_size) const {
  if (num_tasks() != world_size)
    return InvalidArgument("cluster spec '", ToString(), "' has ", num_tasks(),
                           " tasks but mpirun started ", world_size, " ranks");
  return Status::OK();
}

TaskId ClusterSpec::TaskForRank(int rank) const {
  for (const auto& [job, count] : jobs_) {
    if (rank < count) return {job, rank};
    rank -= count;
  }
  return {"", -1};
}

int ClusterSpec::RankForTask(const TaskId& t) const {
  int base = 0;
  for (const auto& [job, count] : jobs_) {
    if (job == t.job) return t.task >= 0 && t.task < count ? base + t.task : -1;
    base += count;
  }
  return -1;
}

int ClusterSpec::RankForDevice(const std::string& device_name) const {
  {
    std::lock_guard<std::mutex> l(rank_cache_->mu);
    auto it = rank_cache_->ranks.find(device_name);
    if (it != rank_cache_->ranks.end()) return it->second;
  }
  auto p = ParseDeviceName(device_name);
  int rank = !p.ok() || !p->has_job ? -1 : RankForTask({p->job, p->has_task ? p->task : 0});
  std::lock_guard<std::mutex> l(rank_cache_->mu);
  rank_cache_->ranks.emplace(device_name, rank);
  return rank;
}

std::vector<int> ClusterSpec::RanksOfJob(const std::string& job) const {
  std::vector<int> ranks;
  int base = 0;
  for (const auto& [j, count] : jobs_) {
    if (j == job)
      for (int i = 0; i < count; ++i) ranks.push_back(base + i);
    base += count;
  }
  return ranks;
}

std::string ClusterSpec::DeviceName(int rank, const std::string& type, int id) const {
  TaskId t = TaskForRank(rank);
  return LocalDeviceName(type, id, t.job, t.task);
}

std::string ClusterSpec::ToString() const {
  std::string s;
  for (const auto& [job, count] : jobs_) s += (s.empty() ? "" : ",") + job + "=" + std::to_string(count);
  return s;
}

}  // namespace fb::mpi
