#include "engine/runtime/step_stats.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>

#include "engine/graph/node_def.h"

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

void AnnotateTransfer(const NodeDef& def, int64_t input_bytes, NodeExecStats* stats) {
  bool send = def.op == "_Send", recv = def.op == "_Recv";
  if (!send && !recv) return;
  (void)GetNodeAttr(def.attrs, send ? "recv_device" : "send_device", &stats->peer_device);
  stats->transfer_bytes = send ? input_bytes : stats->output_bytes;
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
