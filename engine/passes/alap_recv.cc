#include "engine/passes/alap_recv.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "engine/placement/schedule_sim.h"

namespace fb {

namespace {

bool HasControlFlow(const Graph& g) {
  static const std::set<std::string> kOps = {"Enter", "Exit", "Merge", "Switch", "NextIteration",
                                             "LoopCond"};
  for (Node* n : g.nodes())
    if (kOps.count(n->op())) return true;
  return false;
}

// Marks every node reachable from `src` (src included) with `mark`.
void MarkDescendants(Node* src, int mark, std::vector<int>* seen) {
  std::vector<Node*> stack = {src};
  (*seen)[static_cast<size_t>(src->id())] = mark;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->out_edges())
      if ((*seen)[static_cast<size_t>(e->dst->id())] != mark) {
        (*seen)[static_cast<size_t>(e->dst->id())] = mark;
        stack.push_back(e->dst);
      }
  }
}

}  // namespace

StatusOr<PassReport> ScheduleRecvsAlap(Graph* g, const CostModel& cost) {
  PassReport report;
  if (HasControlFlow(*g)) return report;
  ASSIGN_OR_RETURN(std::vector<Node*> order, g->TopologicalOrder());
  SimulatedSchedule sched(*g, cost);
  std::vector<std::vector<Node*>> by_device(static_cast<size_t>(cost.num_devices()));
  for (Node* n : order) {
    int d = cost.DeviceIndex(n->assigned_device());
    if (d < 0) return FailedPrecondition("alap_recv runs after placement; node '", n->name(),
                                         "' is not on a known device");
    sched.Schedule(*n, d);
    by_device[static_cast<size_t>(d)].push_back(n);
  }
  for (auto& nodes : by_device)
    std::sort(nodes.begin(), nodes.end(),
              [&](Node* a, Node* b) { return sched.finish_ns(*a) < sched.finish_ns(*b); });
  // (producer, port, destination device) -> earliest consumer start there.
  std::map<std::tuple<int, int, int>, double> needed;
  for (Node* n : order)
    for (const Edge* e : n->out_edges()) {
      int s = sched.device_of(*n), d = sched.device_of(*e->dst);
      if (e->IsControlEdge() || s == d) continue;
      auto [it, fresh] = needed.try_emplace({n->id(), e->src_output, d}, sched.start_ns(*e->dst));
      if (!fresh) it->second = std::min(it->second, sched.start_ns(*e->dst));
    }
  std::vector<int> seen(static_cast<size_t>(g->num_node_ids()), -1);
  int mark = 0;
  for (const auto& [key, need_ns] : needed) {
    auto [src_id, port, d] = key;
    Node* src = g->node(src_id);
    double deadline = need_ns - cost.TransferNs(cost.OutputBytes(*src, port), sched.device_of(*src), d);
    MarkDescendants(src, ++mark, &seen);
    const auto& nodes = by_device[static_cast<size_t>(d)];
    auto it = std::upper_bound(nodes.begin(), nodes.end(), deadline,
                               [&](double t, Node* n) { return t < sched.finish_ns(*n); });
    Node* gate = nullptr;
    while (it != nodes.begin() && !gate) {
      --it;
      if (seen[static_cast<size_t>((*it)->id())] != mark) gate = *it;
    }
    if (!gate) continue;
    const std::string& dst_dev = cost.devices()[static_cast<size_t>(d)].name;
    std::vector<std::string> entries;
    (void)GetNodeAttr(src->def().attrs, kRecvGatesAttr, &entries);
    entries.push_back(std::to_string(port) + ";" + dst_dev + ";" + gate->name());
    src->mutable_def()->attrs[kRecvGatesAttr] = entries;
    report.changes.push_back("'" + src->name() + ":" + std::to_string(port) + "' to " + dst_dev +
                             " after '" + gate->name() + "'");
  }
  report.num_changes = static_cast<int>(report.changes.size());
  return report;
}

namespace {
class AlapRecvPass : public GraphPass {
 public:
  PassPhase phase() const override { return PassPhase::kAfterPlacement; }
  StatusOr<PassReport> Run(Graph* g, const PassContext& ctx) override {
    return ScheduleRecvsAlap(g, *ctx.cost);
  }
};
}  // namespace

REGISTER_GRAPH_PASS("alap_recv", AlapRecvPass);

}  // namespace fb
