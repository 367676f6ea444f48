#include "engine/placement/step_prediction.h"

#include <algorithm>
#include <map>

#include "engine/placement/schedule_sim.h"

namespace fb {

int64_t AllocatedOutputBytes(const Node& n, int port, const CostModel& cost) {
  if (cost.PersistentBytes(n) > 0) return 0;  // counted once as persistent
  const std::string& op = n.op();
  bool owns = !IsMetadataOp(op) || op == "Const" || op == "Placeholder" || op == "_Feed" ||
              op == "_Recv";
  return owns ? cost.OutputBytes(n, port) : 0;
}

namespace {

struct MemEvent {
  double t;
  int64_t delta;
};

// Peak of per-device allocation intervals [start, end).
std::vector<int64_t> PeakBytes(const Graph& g, const CostModel& cost, const Placement& p,
                               const SimulatedSchedule& s) {
  int nd = cost.num_devices();
  std::vector<std::vector<MemEvent>> events(static_cast<size_t>(nd));
  std::vector<int64_t> persistent(static_cast<size_t>(nd), 0);
  // Transfers of (node, port) to another device: their start and arrival times.
  std::map<std::tuple<int, int, int>, std::pair<double, double>> xfer;
  for (const auto& t : s.transfers())
    xfer[{t.src_node, t.port, t.dst_device}] = {t.start_ns, t.arrival_ns};
  for (Node* n : g.nodes()) {
    int d = p.of(*n);
    persistent[static_cast<size_t>(d)] += cost.PersistentBytes(*n);
    for (int port = 0; port < n->num_outputs(); ++port) {
      int64_t local_bytes = AllocatedOutputBytes(*n, port, cost);
      int64_t copy_bytes = n->output_is_ref(port) ? 0 : cost.OutputBytes(*n, port);
      // Release time per device holding a copy: the last use there.
      std::map<int, double> last_use{{d, s.finish_ns(*n)}};
      for (const Edge* e : n->out_edges()) {
        if (e->src_output != port) continue;
        int dd = p.of(*e->dst);
        double& lu = last_use.try_emplace(dd, 0.0).first->second;
        lu = std::max(lu, s.finish_ns(*e->dst));
        auto it = xfer.find({n->id(), port, dd});
        if (dd != d && it != xfer.end()) last_use[d] = std::max(last_use[d], it->second.second);
      }
      for (const auto& [dev, end] : last_use) {
        int64_t bytes = dev == d ? local_bytes : copy_bytes;
        if (bytes == 0) continue;
        double start = s.start_ns(*n);
        if (dev != d) {
          auto it = xfer.find({n->id(), port, dev});
          if (it != xfer.end()) start = it->second.first;
        }
        events[static_cast<size_t>(dev)].push_back({start, bytes});
        events[static_cast<size_t>(dev)].push_back({std::max(end, start), -bytes});
      }
    }
  }
  std::vector<int64_t> peak(static_cast<size_t>(nd), 0);
  for (int d = 0; d < nd; ++d) {
    auto& ev = events[static_cast<size_t>(d)];
    // Frees before allocations at equal times: a node's inputs are released when it finishes,
    // before the next node on the device allocates.
    std::sort(ev.begin(), ev.end(), [](const MemEvent& a, const MemEvent& b) {
      return a.t != b.t ? a.t < b.t : a.delta < b.delta;
    });
    int64_t cur = 0, best = 0;
    for (const MemEvent& e : ev) best = std::max(best, cur += e.delta);
    peak[static_cast<size_t>(d)] = persistent[static_cast<size_t>(d)] + best;
  }
  return peak;
}

}  // namespace

StatusOr<StepPrediction> PredictStep(const Graph& g, const CostModel& cost, const Placement& p) {
  ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
  SimulatedSchedule s(g, cost);
  StepPrediction r;
  r.num_nodes.assign(static_cast<size_t>(cost.num_devices()), 0);
  for (Node* n : order) {
    int d = static_cast<size_t>(n->id()) < p.device.size() ? p.of(*n) : -1;
    if (d < 0 || d >= cost.num_devices())
      return InvalidArgument("node '", n->name(), "' has no device in the placement");
    s.Schedule(*n, d);
    ++r.num_nodes[static_cast<size_t>(d)];
  }
  r.step_ns = s.makespan_ns();
  for (const auto& t : s.transfers()) {
    r.bytes_crossing += t.bytes;
    ++r.num_transfers;
  }
  for (int d = 0; d < cost.num_devices(); ++d) r.busy_ns.push_back(s.busy_ns(d));
  r.peak_bytes = PeakBytes(g, cost, p, s);
  return r;
}

}  // namespace fb
