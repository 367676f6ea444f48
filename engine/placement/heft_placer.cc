// HEFT, Heterogeneous Earliest Finish Time (Topcuoglu, Hariri, Wu, IEEE TPDS 13(3), 2002): nodes
// are ranked by their upward rank
//   rank_u(n) = mean_d w(n, d) + max over successors s of (mean transfer(n -> s) + rank_u(s)),
// with w from the cost model and the mean transfer over ordered pairs of distinct devices; then,
// in decreasing rank (ties in topological order, so producers come first), each node goes to
// the device giving the earliest finish time in the simulated schedule (schedule_sim.h; this
// variant appends to a device's timeline rather than inserting into idle gaps).
#include <algorithm>
#include <numeric>

#include "engine/placement/placer.h"

namespace fb {

namespace {

double MeanTransferNs(const CostModel& cost, int64_t bytes) {
  int d = cost.num_devices();
  if (d < 2) return 0;
  double sum = 0;
  for (int s = 0; s < d; ++s)
    for (int t = 0; t < d; ++t)
      if (s != t) sum += cost.TransferNs(bytes, s, t);
  return sum / (d * (d - 1));
}

// Upward ranks by node id; `topo` gives each node's topological index (back edges skipped).
std::vector<double> UpwardRanks(const Graph& g, const CostModel& cost,
                                const std::vector<Node*>& order, const std::vector<int>& topo) {
  std::vector<double> rank(static_cast<size_t>(g.num_node_ids()), 0.0);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const Node& n = **it;
    double w = 0;
    for (int d = 0; d < cost.num_devices(); ++d) w += cost.ComputeNs(n, d);
    double tail = 0;
    for (const Edge* e : n.out_edges()) {
      if (topo[static_cast<size_t>(e->dst->id())] <= topo[static_cast<size_t>(n.id())]) continue;
      int64_t bytes = e->IsControlEdge() ? 0 : cost.OutputBytes(n, e->src_output);
      tail = std::max(tail, MeanTransferNs(cost, bytes) + rank[static_cast<size_t>(e->dst->id())]);
    }
    rank[static_cast<size_t>(n.id())] = w / cost.num_devices() + tail;
  }
  return rank;
}

class HeftPlacer : public Placer {
 public:
  StatusOr<Placement> Place(const Graph& g, const CostModel& cost, const PlacementConstraints& c,
                            const PlacerOptions&) override {
    ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
    std::vector<int> topo(static_cast<size_t>(g.num_node_ids()), 0);
    for (size_t i = 0; i < order.size(); ++i) topo[static_cast<size_t>(order[i]->id())] = static_cast<int>(i);
    std::vector<double> rank = UpwardRanks(g, cost, order, topo);
    std::stable_sort(order.begin(), order.end(), [&](Node* a, Node* b) {
      double ra = rank[static_cast<size_t>(a->id())], rb = rank[static_cast<size_t>(b->id())];
      if (ra != rb) return ra > rb;
      return topo[static_cast<size_t>(a->id())] < topo[static_cast<size_t>(b->id())];
    });
    return PlaceEarliestFinish(g, cost, c, order);
  }
};

}  // namespace

REGISTER_PLACER("heft", HeftPlacer);

}  // namespace fb
