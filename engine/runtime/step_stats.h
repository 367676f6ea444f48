#pragma once
// StepStats: per-node execution records of one step, collected by the executor when tracing is on
// (whitepaper section 9, EEG). Times are ns since the Unix epoch from the system clock in
// steady increments (see NowNs). Thread-safe.
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace fb {

// Nanoseconds since the Unix epoch (CLOCK_REALTIME), for traces that line up across ranks.
int64_t NowNs();

struct NodeExecStats {
  std::string node_name;
  std::string op;
  std::string device;
  int thread_id = 0;      // OS thread id (gettid) of the thread that ran the kernel
  int64_t start_ns = 0;   // kernel start
  int64_t end_ns = 0;     // kernel end (for async kernels, when done was called)
  int64_t output_bytes = 0;
  int64_t step_id = 0;
  // For Send/Recv: the peer device and the tensor bytes moved.
  std::string peer_device;
  int64_t transfer_bytes = 0;
  int rank = 0;  // MPI rank of the worker that ran the node (0 in a single process)
};

struct NodeDef;
// For a _Send or _Recv (3.2.2) sets stats->peer_device from its recv_device/send_device attr and
// stats->transfer_bytes to `input_bytes` (a _Send's tensor) or stats->output_bytes (a _Recv's),
// so traces show transfers with their bytes and peer. Other ops are left unchanged.
void AnnotateTransfer(const NodeDef& def, int64_t input_bytes, NodeExecStats* stats);

class StepStatsCollector {
 public:
  void Record(NodeExecStats stats);
  std::vector<NodeExecStats> Take();
  size_t size() const;

 private:
  mutable std::mutex mu_;
  std::vector<NodeExecStats> stats_;
};

// OS thread id of the calling thread.
int CurrentThreadOsId();

}  // namespace fb
