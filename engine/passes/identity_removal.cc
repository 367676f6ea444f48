#include "engine/passes/identity_removal.h"

#include <set>

namespace fb {

namespace {

bool IsStructural(const Node& n) {
  static const std::set<std::string> kOps = {"Switch", "Merge", "Enter", "Exit", "NextIteration",
                                             "LoopCond", "ControlTrigger", "_Recv", "_Send"};
  return kOps.count(n.op()) > 0;
}

bool Removable(const Node& n) {
  if (n.op() != "Identity" || n.num_inputs() != 1) return false;
  const Edge* in = n.input_edge(0);
  if (!in) return false;
  const Node& src = *in->src;
  if (src.output_is_ref(in->src_output) || IsStructural(src)) return false;
  if (src.requested_device() != n.requested_device() ||
      src.assigned_device() != n.assigned_device())
    return false;
  for (const Edge* e : n.out_edges())
    if (IsStructural(*e->dst)) return false;
  return true;
}

bool HasControlEdge(const Node* src, const Node* dst) {
  for (const Edge* e : dst->in_edges())
    if (e->IsControlEdge() && e->src == src) return true;
  return false;
}

void AddControlEdgeOnce(Graph* g, Node* src, Node* dst) {
  if (src != dst && !HasControlEdge(src, dst)) g->AddControlEdge(src, dst);
}

// Rewires n's consumers as described in the header, then removes n.
void Bypass(Graph* g, Node* n) {
  const Edge* in = n->input_edge(0);
  Node* src = in->src;
  const int port = in->src_output;
  std::vector<Node*> control_inputs;
  for (const Edge* e : n->in_edges())
    if (e->IsControlEdge()) control_inputs.push_back(e->src);
  std::vector<const Edge*> outs = n->out_edges();
  for (const Edge* e : outs) {
    Node* dst = e->dst;
    const int dst_input = e->dst_input;
    g->RemoveEdge(e);
    if (dst_input == kControlSlot) AddControlEdgeOnce(g, src, dst);
    else g->AddEdge(src, port, dst, dst_input);
    for (Node* c : control_inputs) AddControlEdgeOnce(g, c, dst);
  }
  g->RemoveNode(n);
}

}  // namespace

PassReport RemoveIdentities(Graph* g) {
  PassReport report;
  report.pass = "identity_removal";
  auto order = g->TopologicalOrder();
  if (!order.ok()) return report;
  for (Node* n : *order) {
    if (!Removable(*n)) continue;
    report.changes.push_back("removed '" + n->name() + "'");
    Bypass(g, n);
  }
  report.num_changes = static_cast<int>(report.changes.size());
  return report;
}

namespace {
class IdentityRemovalPass : public GraphPass {
 public:
  PassPhase phase() const override { return PassPhase::kBeforePlacement; }
  StatusOr<PassReport> Run(Graph* g, const PassContext&) override { return RemoveIdentities(g); }
};
}  // namespace

REGISTER_GRAPH_PASS("identity_removal", IdentityRemovalPass);

}  // namespace fb
