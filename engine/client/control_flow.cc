#include "engine/client/control_flow.h"

#include <map>

#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"

namespace fb::ops {

namespace {

using BringInFn = std::function<Output(Output external)>;

bool IsNoCapture(const Node* n) { return n->def().attrs.count(kNoCaptureAttr) > 0; }

// Makes the nodes with ids in [first, end) part of a closed region (a branch or a loop) that
// starts at node id `boundary` <= first: data inputs from nodes built before `boundary` (or
// marked kNoCaptureAttr: forward nodes added by gradient builders meanwhile) go through bring_in (memoized per tensor); control inputs from
// outside become control inputs of `entry` nodes; nodes left without inputs get a control edge
// from `pivot`, so that they run once per branch taken or per iteration.
void CloseRegion(const Scope& s, int boundary, int first, int end, const BringInFn& bring_in,
                 Node* pivot, const std::vector<Node*>& entries) {
  Graph* g = s.graph();
  std::map<std::pair<Node*, int>, Output> brought;
  for (int id = first; id < end && s.ok(); ++id) {
    Node* n = g->node(id);
    if (!n || IsNoCapture(n)) continue;
    std::vector<const Edge*> in(n->in_edges().begin(), n->in_edges().end());
    for (const Edge* e : in) {
      Node* src = e->src;
      if (src->id() >= boundary && !IsNoCapture(src)) continue;
      if (e->IsControlEdge()) {
        for (Node* entry : entries) g->AddControlEdge(src, entry);
        g->RemoveEdge(e);
        continue;
      }
      auto key = std::make_pair(src, e->src_output);
      auto it = brought.find(key);
      if (it == brought.end()) it = brought.emplace(key, bring_in(Output(src, e->src_output))).first;
      if (!it->second.valid()) return;
      int slot = e->dst_input;
      g->RemoveEdge(e);
      g->AddEdge(it->second.node(), it->second.index(), n, slot);
    }
    if (n->in_edges().empty() && pivot) g->AddControlEdge(pivot, n);
  }
}

std::string LeafName(const std::string& full) { return full.substr(full.rfind('/') + 1); }

Status CheckResults(const std::string& what, const std::vector<Output>& got,
                    const std::vector<DataType>& want) {
  if (got.size() != want.size())
    return InvalidArgument(what, ": returned ", got.size(), " tensors, expected ", want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (!got[i].valid()) return InvalidArgument(what, ": result ", i, " is invalid");
    if (got[i].type() != want[i])
      return InvalidArgument(what, ": result ", i, " is ", DataTypeString(got[i].type()),
                             ", expected ", DataTypeString(want[i]));
  }
  return Status::OK();
}

std::vector<DataType> TypesOf(const std::vector<Output>& xs) {
  std::vector<DataType> t;
  for (const Output& x : xs) t.push_back(x.type());
  return t;
}

// Builds one branch of a Cond: `fn` under `s`, closed by Switch(x, pred):`port` captures.
std::vector<Output> BuildBranch(const Scope& s, Output pred, int port, Node* pivot,
                                int boundary, const BranchFn& fn) {
  const int first = s.graph()->num_node_ids();
  std::vector<Output> outs = fn(s);
  for (Output& o : outs)
    if (o.valid() && o.node()->id() < first) o = Identity(s, o);  // route through the branch
  const int end = s.graph()->num_node_ids();
  Node* pivot_switch = pivot->in_edges().empty() ? nullptr : pivot->input_edge(0)->src;
  auto bring_in = [&](Output x) {
    Node* sw = AddOp(s.WithOpName("Switch"), "Switch", {x, pred});
    return sw ? Output(sw, port) : Output();
  };
  CloseRegion(s, boundary, first, end, bring_in, pivot, {pivot_switch});
  return outs;
}

}  // namespace

std::vector<Output> Cond(const Scope& scope, Output pred, const BranchFn& then_fn,
                         const BranchFn& else_fn) {
  if (!scope.ok()) return {};
  if (!pred.valid() || pred.type() != DataType::kBool) {
    scope.UpdateStatus(InvalidArgument("Cond: pred must be a bool tensor, got ",
                                       DataTypeString(pred.type())));
    return {};
  }
  std::string name = scope.GetUniqueName("cond");
  Scope s = scope.NewSubScope(LeafName(name));
  Node* psw = AddOp(scope.WithOpName(LeafName(name)), "Switch", {pred, pred});
  if (!psw) return {};
  Output pivot_t = Identity(s.WithOpName("switch_t"), Output(psw, 1));
  Output pivot_f = Identity(s.WithOpName("switch_f"), Output(psw, 0));
  if (!s.ok()) return {};
  const int boundary = psw->id();
  std::vector<Output> t =
      BuildBranch(s.NewSubScope("then"), pred, 1, pivot_t.node(), boundary, then_fn);
  std::vector<Output> f =
      BuildBranch(s.NewSubScope("else"), pred, 0, pivot_f.node(), boundary, else_fn);
  if (!s.ok()) return {};
  Status st = CheckResults("Cond '" + name + "' else branch", f, TypesOf(t));
  if (!st.ok()) {
    scope.UpdateStatus(st);
    return {};
  }
  std::vector<Output> outs;
  for (size_t i = 0; i < t.size(); ++i) {
    Node* m = AddOpWithList(s.WithOpName("Merge"), "Merge", {{f[i], t[i]}});
    if (!m) return {};
    outs.push_back(Output(m, 0));
  }
  return outs;
}

Output Enter(const Scope& s, Output x, const std::string& frame_name, bool is_constant,
             int parallel_iterations) {
  return Op(s, "Enter", {x},
            {{"frame_name", frame_name},
             {"is_constant", is_constant},
             {"parallel_iterations", static_cast<int64_t>(parallel_iterations)}});
}

namespace {

// Enter and Merge per loop variable; the Merge's second input is rewired to NextIteration later.
bool BuildLoopEntry(const Scope& scope, const Scope& s, const std::vector<Output>& vars,
                    const std::string& frame, int pi, WhileLoopNodes* n) {
  for (size_t i = 0; i < vars.size(); ++i) {
    Output e = Enter(i == 0 ? scope.WithOpName(LeafName(frame)) : s.WithOpName("Enter"), vars[i],
                     frame, false, pi);
    if (!e.valid()) return false;
    Node* m = AddOpWithList(s.WithOpName("Merge"), "Merge", {{e, e}});
    if (!m) return false;
    n->enters.push_back(e.node());
    n->merges.push_back(m);
  }
  return true;
}

// Switch per variable on the loop condition: false -> Exit, true -> Identity (the body input).
bool BuildLoopSwitches(const Scope& s, Output lc, WhileLoopNodes* n) {
  for (Node* m : n->merges) {
    Node* sw = AddOp(s.WithOpName("Switch"), "Switch", {Output(m, 0), lc});
    if (!sw) return false;
    Output exit = Op(s.WithOpName("Exit"), "Exit", {Output(sw, 0)});
    Output body_in = Identity(s.WithOpName("Identity"), Output(sw, 1));
    if (!exit.valid() || !body_in.valid()) return false;
    n->switches.push_back(sw);
    n->exits.push_back(exit.node());
    n->body_inputs.push_back(body_in);
  }
  return true;
}

}  // namespace

std::vector<Output> WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars,
                              const LoopCondFn& cond, const LoopBodyFn& body,
                              const WhileOptions& options, WhileLoopNodes* nodes) {
  if (!scope.ok()) return {};
  if (loop_vars.empty()) {
    scope.UpdateStatus(InvalidArgument("WhileLoop: needs at least one loop variable"));
    return {};
  }
  const std::string frame =
      options.frame_name.empty() ? scope.GetUniqueName("while") : options.frame_name;
  Scope s = scope.NewSubScope(LeafName(frame));
  WhileLoopNodes local;
  WhileLoopNodes* n = nodes ? nodes : &local;
  *n = WhileLoopNodes();
  n->frame_name = frame;
  const int pi = options.parallel_iterations;
  if (!BuildLoopEntry(scope, s, loop_vars, frame, pi, n)) return {};
  std::vector<Output> merged;
  for (Node* m : n->merges) merged.push_back(Output(m, 0));

  const int cond_first = s.graph()->num_node_ids();
  Output pred = cond(s, merged);
  if (!s.ok()) return {};
  if (!pred.valid() || pred.type() != DataType::kBool) {
    scope.UpdateStatus(InvalidArgument("WhileLoop '", frame, "': cond must return a bool, got ",
                                       DataTypeString(pred.type())));
    return {};
  }
  if (pred.node()->id() < cond_first) pred = Identity(s, pred);
  const int cond_end = s.graph()->num_node_ids();
  Output lc = Op(s.WithOpName("LoopCond"), "LoopCond", {pred});
  if (!lc.valid() || !BuildLoopSwitches(s, lc, n)) return {};
  n->loop_cond = lc.node();

  const int body_first = s.graph()->num_node_ids();
  std::vector<Output> outs = body(s, n->body_inputs);
  if (!s.ok()) return {};
  Status st = CheckResults("WhileLoop '" + frame + "' body", outs, TypesOf(loop_vars));
  if (!st.ok()) {
    scope.UpdateStatus(st);
    return {};
  }
  for (const Output& o : outs) {
    Output next = Op(s.WithOpName("NextIteration"), "NextIteration", {o});
    if (!next.valid()) return {};
    n->next_iterations.push_back(next.node());
  }
  const int body_end = s.graph()->num_node_ids();

  CaptureFn capture = options.capture;
  if (!capture)
    capture = [&](const Scope& cs, Output x) { return Enter(cs.WithOpName("Enter"), x, frame, true, pi); };
  auto bring_in = [&](Output x) { return capture(s, x); };
  const int boundary = n->enters[0]->id();
  CloseRegion(s, boundary, cond_first, cond_end, bring_in, n->merges[0], n->enters);
  CloseRegion(s, boundary, body_first, body_end, bring_in, n->body_inputs[0].node(), n->enters);
  if (!s.ok()) return {};
  Graph* g = s.graph();
  for (size_t i = 0; i < n->merges.size(); ++i) {
    g->RemoveEdge(n->merges[i]->input_edge(1));
    g->AddEdge(n->next_iterations[i], 0, n->merges[i], 1);
  }
  std::vector<Output> exits;
  for (Node* e : n->exits) exits.push_back(Output(e, 0));
  return exits;
}

}  // namespace fb::ops
