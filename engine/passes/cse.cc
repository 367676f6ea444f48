#include "engine/passes/cse.h"

#include <algorithm>
#include <functional>
#include <unordered_map>

namespace fb {

namespace {

bool Mergeable(const Node& n) {
  // Placeholders are distinct inputs even when their dtype and shape agree (as in TensorFlow).
  if (n.is_stateful() || n.op() == "Placeholder") return false;
  for (int i = 0; i < n.num_inputs(); ++i)
    if (n.input_is_ref(i)) return false;
  for (int i = 0; i < n.num_outputs(); ++i)
    if (n.output_is_ref(i)) return false;
  return true;
}

// Data inputs as (producer id, port) in input order, then sorted control producer ids.
std::vector<std::pair<int, int>> Operands(const Node& n) {
  std::vector<std::pair<int, int>> data(static_cast<size_t>(n.num_inputs()), {-1, 0});
  std::vector<std::pair<int, int>> control;
  for (const Edge* e : n.in_edges()) {
    if (e->IsControlEdge()) control.push_back({e->src->id(), kControlSlot});
    else data[static_cast<size_t>(e->dst_input)] = {e->src->id(), e->src_output};
  }
  std::sort(control.begin(), control.end());
  control.erase(std::unique(control.begin(), control.end()), control.end());
  data.insert(data.end(), control.begin(), control.end());
  return data;
}

size_t ValueHash(const Node& n, const std::vector<std::pair<int, int>>& operands) {
  std::hash<std::string> hs;
  size_t h = hs(n.op()) ^ (hs(n.requested_device()) * 31) ^ (hs(n.assigned_device()) * 131);
  for (const auto& [src, port] : operands) h = h * 1000003u ^ (static_cast<size_t>(src) * 64 + port + 1);
  for (const auto& [name, value] : n.def().attrs) h = h * 1000003u ^ hs(name) ^ hs(value.DebugString());
  return h;
}

bool Congruent(const Node& a, const Node& b, const std::vector<std::pair<int, int>>& ops_a,
               const std::vector<std::pair<int, int>>& ops_b) {
  return a.op() == b.op() && a.requested_device() == b.requested_device() &&
         a.assigned_device() == b.assigned_device() && ops_a == ops_b &&
         a.def().attrs == b.def().attrs;
}

// Moves every consumer of `dup` onto `kept` (same ports) and removes `dup`.
void Replace(Graph* g, Node* dup, Node* kept) {
  std::vector<const Edge*> outs = dup->out_edges();
  for (const Edge* e : outs) {
    Node* dst = e->dst;
    int src_output = e->src_output, dst_input = e->dst_input;
    g->RemoveEdge(e);
    if (src_output == kControlSlot) g->AddControlEdge(kept, dst);
    else g->AddEdge(kept, src_output, dst, dst_input);
  }
  g->RemoveNode(dup);
}

}  // namespace

PassReport EliminateCommonSubexpressions(Graph* g) {
  PassReport report;
  report.pass = "cse";
  auto order = g->TopologicalOrder();
  if (!order.ok()) return report;  // a cyclic graph fails validation before passes run
  std::unordered_multimap<size_t, std::pair<Node*, std::vector<std::pair<int, int>>>> table;
  for (Node* n : *order) {
    if (!Mergeable(*n)) continue;
    std::vector<std::pair<int, int>> operands = Operands(*n);
    size_t h = ValueHash(*n, operands);
    Node* kept = nullptr;
    auto [lo, hi] = table.equal_range(h);
    for (auto it = lo; it != hi && !kept; ++it)
      if (Congruent(*it->second.first, *n, it->second.second, operands)) kept = it->second.first;
    if (!kept) {
      table.emplace(h, std::make_pair(n, std::move(operands)));
      continue;
    }
    report.changes.push_back("merged '" + n->name() + "' into '" + kept->name() + "'");
    Replace(g, n, kept);
  }
  report.num_changes = static_cast<int>(report.changes.size());
  return report;
}

namespace {
class CsePass : public GraphPass {
 public:
  PassPhase phase() const override { return PassPhase::kBeforePlacement; }
  StatusOr<PassReport> Run(Graph* g, const PassContext&) override {
    return EliminateCommonSubexpressions(g);
  }
};
}  // namespace

REGISTER_GRAPH_PASS("cse", CsePass);

}  // namespace fb
