#include "sim/executor_handoffs.h"

#include <map>
#include <vector>

namespace fb::sim {

StatusOr<std::set<std::string>> HandedOffNodes(const Graph& g,
                                               const std::function<bool(const Node&)>& expensive) {
  ASSIGN_OR_RETURN(std::vector<Node*> order, g.TopologicalOrder());
  std::map<const Node*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  // The node whose completion makes each node ready (null: ready at the step's start).
  std::map<const Node*, std::vector<const Node*>> made_ready;
  for (const Node* n : order) {
    const Node* last = nullptr;
    for (const Edge* e : n->in_edges()) {
      if (e->src == nullptr || e->src->op() == "NextIteration") continue;
      if (last == nullptr || position[e->src] > position[last]) last = e->src;
    }
    made_ready[last].push_back(n);
  }
  std::set<std::string> handed_off;
  for (const auto& [producer, ready] : made_ready) {
    bool kept_one = false;
    for (const Node* n : ready) {  // in topological order
      if (!expensive(*n)) continue;
      if (kept_one) handed_off.insert(n->name());
      kept_one = true;
    }
  }
  return handed_off;
}

}  // namespace fb::sim
