#include "engine/placement/schedule_sim.h"

#include <algorithm>

#include "engine/placement/placer.h"
#include "engine/partition/partition.h"

namespace fb {

SimulatedSchedule::SimulatedSchedule(const Graph& g, const CostModel& cost)
    : g_(g),
      cost_(cost),
      num_devices_(cost.num_devices()),
      device_free_(static_cast<size_t>(num_devices_), 0.0),
      busy_(static_cast<size_t>(num_devices_), 0.0),
      link_free_(static_cast<size_t>(num_devices_ * num_devices_), 0.0),
      start_(static_cast<size_t>(g.num_node_ids()), 0.0),
      finish_(static_cast<size_t>(g.num_node_ids()), 0.0),
      device_(static_cast<size_t>(g.num_node_ids()), -1) {}

double SimulatedSchedule::Arrival(const Edge& e, int device, bool commit) {
  int src = device_[static_cast<size_t>(e.src->id())];
  double done = finish_[static_cast<size_t>(e.src->id())];
  if (src == device) return done;
  auto key = std::make_tuple(e.src->id(), e.src_output, device);
  if (auto it = arrivals_.find(key); it != arrivals_.end()) return it->second;
  int64_t bytes = e.IsControlEdge() ? 0 : cost_.OutputBytes(*e.src, e.src_output);
  double& link = link_free_[static_cast<size_t>(src * num_devices_ + device)];
  double start = std::max(done, link);
  // A Recv gate (alap_recv pass) holds the transfer until the gate node has finished.
  if (!e.IsControlEdge())
    for (const RecvGate& gate : RecvGates(*e.src))
      if (gate.port == e.src_output && gate.dst_device == cost_.devices()[static_cast<size_t>(device)].name)
        if (Node* gn = g_.FindNode(gate.gate); gn && device_[static_cast<size_t>(gn->id())] >= 0)
          start = std::max(start, finish_[static_cast<size_t>(gn->id())]);
  double arrival = start + cost_.TransferNs(bytes, src, device);
  link = arrival;
  if (commit) {
    arrivals_[key] = arrival;
    transfers_.push_back({e.src->id(), e.src_output, device, start, arrival, bytes});
  }
  return arrival;
}

double SimulatedSchedule::ReadyTime(const Node& n, int device, bool commit) {
  double ready = device_free_[static_cast<size_t>(device)];
  for (const Edge* e : n.in_edges()) {
    if (device_[static_cast<size_t>(e->src->id())] < 0) continue;  // loop back edge
    ready = std::max(ready, Arrival(*e, device, commit));
  }
  return ready;
}

double SimulatedSchedule::FinishTime(const Node& n, int device) {
  // Tentative transfers occupy links; restore the links this node's inputs would use.
  std::vector<std::pair<size_t, double>> saved;
  for (const Edge* e : n.in_edges()) {
    int src = device_[static_cast<size_t>(e->src->id())];
    if (src >= 0 && src != device) {
      size_t li = static_cast<size_t>(src * num_devices_ + device);
      saved.emplace_back(li, link_free_[li]);
    }
  }
  double ready = ReadyTime(n, device, /*commit=*/false);
  for (auto it = saved.rbegin(); it != saved.rend(); ++it) link_free_[it->first] = it->second;
  return ready + cost_.ComputeNs(n, device);
}

int SimulatedSchedule::EarliestFinishDevice(const Node& n, const std::vector<int>& candidates) {
  int best = candidates[0];
  double best_finish = FinishTime(n, best);
  for (size_t i = 1; i < candidates.size(); ++i) {
    double f = FinishTime(n, candidates[i]);
    if (f < best_finish) best = candidates[i], best_finish = f;
  }
  return best;
}

void SimulatedSchedule::Schedule(const Node& n, int device) {
  double ready = ReadyTime(n, device, /*commit=*/true);
  double dur = cost_.ComputeNs(n, device);
  size_t id = static_cast<size_t>(n.id());
  start_[id] = ready;
  finish_[id] = ready + dur;
  device_[id] = device;
  device_free_[static_cast<size_t>(device)] = finish_[id];
  busy_[static_cast<size_t>(device)] += dur;
  makespan_ = std::max(makespan_, finish_[id]);
}

StatusOr<Placement> PlaceEarliestFinish(const Graph& g, const CostModel& cost,
                                        const PlacementConstraints& c,
                                        const std::vector<Node*>& order) {
  SimulatedSchedule sched(g, cost);
  return PlaceGroupsInOrder(
      g, cost, c, order,
      [&](const Node& n, const std::vector<int>& cand) { return sched.EarliestFinishDevice(n, cand); },
      [&](const Node& n, int d) { sched.Schedule(n, d); });
}

}  // namespace fb
