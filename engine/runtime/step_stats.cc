#include "engine/runtime/step_stats.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

namespace fb {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int CurrentThreadOsId() {
  thread_local int tid = static_cast<int>(syscall(SYS_gettid));
  return tid;
}

void StepStatsCollector::Record(NodeExecStats stats) {
  std::lock_guard<std::mutex> l(mu_);
  stats_.push_back(std::move(stats));
}

std::vector<NodeExecStats> StepStatsCollector::Take() {
  std::lock_guard<std::mutex> l(mu_);
  return std::move(stats_);
}

size_t StepStatsCollector::size() const {
  std::lock_guard<std::mutex> l(mu_);
  return stats_.size();
}

}  // namespace fb
