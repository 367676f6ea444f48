#pragma once
// What the cost model predicts for one step of a placed graph: the simulated step time
// (schedule_sim.h, nodes in topological order), the bytes crossing devices (one transfer per
// (tensor, destination device), Figure 4), and the peak memory per device. Used by
// `flowbench place`, the placer benchmark and the tests; the simulator (sim/) replays the same
// graph with contention on a SimGrid platform.
//
// Memory model: a device holds the persistent bytes of its Variables for the whole step; every
// other node's outputs are allocated when it starts (outputs of ops that only alias their input,
// IsMetadataOp, take nothing, except Const, Placeholder, _Feed and _Recv) and freed when the last
// consumer on that device and the last transfer out of it have finished; a tensor received from
// another device occupies the destination from the transfer's start until its last consumer
// there has finished. The peak is the maximum over time of the sum.
#include <cstdint>
#include <vector>

#include "engine/placement/placer.h"

namespace fb {

struct StepPrediction {
  double step_ns = 0;             // makespan of the simulated step
  int64_t bytes_crossing = 0;     // bytes moved between devices
  int num_transfers = 0;          // (tensor, destination device) pairs, control included
  std::vector<int64_t> peak_bytes;  // per device index
  std::vector<double> busy_ns;      // compute time per device index
  std::vector<int> num_nodes;       // nodes per device index
};

// Simulates one step of `g` placed by `p`. InvalidArgument naming a node without a device or on
// a cycle.
StatusOr<StepPrediction> PredictStep(const Graph& g, const CostModel& cost, const Placement& p);

// Allocation bytes of output `port` of `n` under the memory model above.
int64_t AllocatedOutputBytes(const Node& n, int port, const CostModel& cost);

}  // namespace fb
