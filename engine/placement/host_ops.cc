#include "engine/placement/host_ops.h"

#include <algorithm>

namespace fb {

namespace {
constexpr const char* kClient = "client feed/fetch: the tensor crosses host memory anyway";
constexpr const char* kInput = "input pipeline: host queue of the reader threads (4.5)";
constexpr const char* kSampler = "candidate sampler: host random engine over ids, tiny output";
constexpr const char* kFile = "checkpoint file I/O on the host (3.3)";
}  // namespace

const std::vector<HostOp>& HostOps() {
  static const auto* ops = new std::vector<HostOp>{
      {"ComputeAccidentalHits", kSampler},
      {"DatasetBatch", "input pipeline: reads the registered dataset in host memory (4.5)"},
      {"FIFOQueue", kInput},
      {"LogUniformCandidateSampler", kSampler},
      {"MpiAllreduce", "MPI transport: reduces host buffers between ranks"},
      {"Placeholder", kClient},
      {"QueueClose", kInput},
      {"QueueDequeue", kInput},
      {"QueueDequeueMany", kInput},
      {"QueueEnqueue", kInput},
      {"QueueEnqueueMany", kInput},
      {"QueueSize", kInput},
      {"RandomShuffleQueue", kInput},
      {"ResetContainer", "session administration: drops a container's resources (4.7)"},
      {"Restore", kFile},
      {"Save", kFile},
      {"UniformCandidateSampler", kSampler},
      {"_Feed", kClient},
      {"_Fetch", kClient},
      {"_Recv", "transfer endpoint inserted by partitioning, placed with its peer (3.2.2)"},
      {"_Send", "transfer endpoint inserted by partitioning, placed with its peer (3.2.2)"},
  };
  return *ops;
}

const char* HostOpReason(const std::string& op) {
  const auto& ops = HostOps();
  auto it = std::lower_bound(ops.begin(), ops.end(), op,
                             [](const HostOp& h, const std::string& name) { return h.op < name; });
  return it != ops.end() && it->op == op ? it->reason : nullptr;
}

const char* HostNodeReason(const std::string& op, const AttrMap& attrs) {
  if (const char* reason = HostOpReason(op)) return reason;
  for (const auto& [name, value] : attrs) {
    if (value.holds<DataType>() && value.get<DataType>() == DataType::kString)
      return "string tensor: host memory only";
  }
  return nullptr;
}

}  // namespace fb
