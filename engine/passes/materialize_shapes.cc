#include "engine/passes/materialize_shapes.h"

#include <map>
#include <set>

#include "engine/graph/control_flow_info.h"
#include "engine/placement/graph_shapes.h"

namespace fb {

namespace {

bool IsShapeQuery(const Node& n) {
  return (n.op() == "Shape" || n.op() == "Size" || n.op() == "Rank") && n.num_inputs() == 1;
}

// An Assign that may change a Variable's shape makes static shapes of variable reads unsafe.
bool MayReshapeVariables(const Graph& g) {
  for (Node* n : g.nodes()) {
    bool validate = true;
    if (n->op() == "Assign" && GetNodeAttr(n->def().attrs, "validate_shape", &validate).ok() &&
        !validate)
      return true;
  }
  return false;
}

// "[2,3]" or "6" for a report line.
std::string ValueString(const Tensor& t) {
  std::string s = t.dims() == 0 ? "" : "[";
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (i > 0) s += ",";
    s += t.dtype() == DataType::kInt64 ? std::to_string(t.data<int64_t>()[i])
                                       : std::to_string(t.data<int32_t>()[i]);
  }
  return t.dims() == 0 ? s : s + "]";
}

bool IsControlFlow(const Node& n) {
  static const std::set<std::string> kOps = {"Switch", "Merge", "Enter", "Exit", "NextIteration",
                                             "LoopCond", "ControlTrigger"};
  return kOps.count(n.op()) > 0;
}

// Materialized Consts without control inputs, by (value, device), for sharing.
using SharedConsts = std::map<std::string, Node*>;

std::string ShareKey(const Node& n, const std::string& value) {
  return n.requested_device() + "|" + n.assigned_device() + "|" +
         DataTypeString(n.output_type(0)) + "|" + value;
}

// Replaces the query `n` by a Const named like it holding `value` (see the header), or by the
// equal Const of `shared` when there is one; returns the Const.
Node* Materialize(Graph* g, Node* n, const Tensor& value, bool wait_for_input,
                  Node* shared) {
  std::vector<Node*> control_inputs;
  if (wait_for_input) control_inputs.push_back(n->input_edge(0)->src);
  for (const Edge* e : n->in_edges())
    if (e->IsControlEdge()) control_inputs.push_back(e->src);
  std::vector<std::pair<Node*, int>> consumers;  // (dst, dst_input); kControlSlot for control
  for (const Edge* e : n->out_edges()) consumers.push_back({e->dst, e->dst_input});
  NodeDef def{n->name(), "Const", {}, n->requested_device(),
              {{"value", value}, {"dtype", value.dtype()}}};
  std::string device = n->assigned_device();
  g->RemoveNode(n);
  Node* c = shared;
  if (c == nullptr) {
    auto added = g->AddNode(def);
    FB_CHECK(added.ok()) << added.status().ToString();
    c = *added;
    c->set_assigned_device(device);
    for (Node* in : control_inputs) g->AddControlEdge(in, c);
  }
  for (const auto& [dst, input] : consumers) {
    if (input == kControlSlot) g->AddControlEdge(c, dst);
    else g->AddEdge(c, 0, dst, input);
  }
  return c;
}

}  // namespace

PassReport MaterializeShapes(Graph* g) {
  PassReport report;
  report.pass = "materialize_shapes";
  if (MayReshapeVariables(*g)) return report;
  auto shapes = InferGraphShapes(*g, {}, /*strict=*/false);
  if (!shapes.ok()) return report;
  auto frames = ControlFlowInfo::Build(*g, /*strict=*/true);
  if (!frames.ok()) return report;
  bool control_flow = false;
  for (Node* n : g->nodes()) control_flow = control_flow || IsControlFlow(*n);
  std::vector<std::pair<Node*, Tensor>> queries;
  for (Node* n : g->nodes()) {
    if (!IsShapeQuery(*n)) continue;
    const Edge* in = n->input_edge(0);
    if (!in || in->src->output_is_ref(in->src_output) || !frames->frame(n).empty()) continue;
    if (const Tensor* value = shapes->constant(*n)) queries.push_back({n, *value});
  }
  SharedConsts shared;
  for (auto& [n, value] : queries) {
    const std::string text = ValueString(value);
    std::string line = "materialized '" + n->name() + "' (" + n->op() + ") = " + text;
    bool has_control_inputs = false;
    for (const Edge* e : n->in_edges()) has_control_inputs |= e->IsControlEdge();
    // Without control flow no tensor is dead and every node is in the root frame: the Const
    // need not wait for the queried tensor, and equal Consts can be one.
    const bool shareable = !control_flow && !has_control_inputs;
    Node* same = nullptr;
    const std::string key = ShareKey(*n, text);
    if (shareable)
      if (auto it = shared.find(key); it != shared.end()) same = it->second;
    if (same) line += " as '" + same->name() + "'";
    report.changes.push_back(line);
    Node* c = Materialize(g, n, value, control_flow, same);
    if (shareable && !same) shared[key] = c;
  }
  report.num_changes = static_cast<int>(report.changes.size());
  return report;
}

namespace {
class MaterializeShapesPass : public GraphPass {
 public:
  PassPhase phase() const override { return PassPhase::kBeforePlacement; }
  StatusOr<PassReport> Run(Graph* g, const PassContext&) override { return MaterializeShapes(g); }
};
}  // namespace

REGISTER_GRAPH_PASS("materialize_shapes", MaterializeShapesPass);

}  // namespace fb
