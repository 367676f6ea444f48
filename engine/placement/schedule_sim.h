#pragma once
// Simulated execution of a placed graph (whitepaper 3.2.1: "the placement algorithm ... simulates
// the execution of the graph"), shared by the greedy placer (which asks, node by node, when a
// node would finish on each device) and by PredictStep (which reports a placement's step time).
// Model: each device runs one node at a time, in the order nodes are scheduled; a node starts
// when its device is free and all its inputs have arrived; a tensor crossing devices is sent
// once per (tensor, destination device) (Figure 4), over a directed link that carries one
// transfer at a time, taking CostModel::TransferNs; a control edge across devices costs one
// empty transfer. Edges from nodes not yet scheduled (loop back edges) are ignored. A transfer
// with a Recv gate (partition.h, set by the alap_recv pass) starts after its gate finishes.
// Not thread-safe.
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "engine/placement/cost_model.h"

namespace fb {

class SimulatedSchedule {
 public:
  SimulatedSchedule(const Graph& g, const CostModel& cost);

  // When `n` would finish if scheduled now on device index `device`, ns. Leaves the schedule
  // unchanged.
  double FinishTime(const Node& n, int device);
  // The candidate device on which `n` would finish first (ties: the earlier candidate).
  int EarliestFinishDevice(const Node& n, const std::vector<int>& candidates);
  // Schedules `n` on `device`: commits its start and finish and its input transfers.
  void Schedule(const Node& n, int device);

  double start_ns(const Node& n) const { return start_[static_cast<size_t>(n.id())]; }
  double finish_ns(const Node& n) const { return finish_[static_cast<size_t>(n.id())]; }
  int device_of(const Node& n) const { return device_[static_cast<size_t>(n.id())]; }
  double makespan_ns() const { return makespan_; }
  // Transfers committed so far: (producer id, port or -1 for control, destination device) ->
  // arrival time.
  struct Transfer {
    int src_node;
    int port;
    int dst_device;
    double start_ns;
    double arrival_ns;
    int64_t bytes;
  };
  const std::vector<Transfer>& transfers() const { return transfers_; }
  double busy_ns(int device) const { return busy_[static_cast<size_t>(device)]; }

 private:
  // Arrival time of input edge `e` on `device`; occupies the link (link_free_), and records
  // the transfer when `commit`.
  double Arrival(const Edge& e, int device, bool commit);
  double ReadyTime(const Node& n, int device, bool commit);

  const Graph& g_;
  const CostModel& cost_;
  int num_devices_;
  std::vector<double> device_free_, busy_;
  std::vector<double> link_free_;  // [src * D + dst]
  std::vector<double> start_, finish_;
  std::vector<int> device_;
  std::map<std::tuple<int, int, int>, double> arrivals_;
  std::vector<Transfer> transfers_;
  double makespan_ = 0;
};

}  // namespace fb
