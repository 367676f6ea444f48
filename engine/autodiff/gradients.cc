#include "engine/autodiff/gradients.h"

#include <map>
#include <set>

#include "engine/autodiff/gradient_registry.h"

namespace fb {

namespace {

using OutKey = std::pair<int, int>;  // (node id, output index)

WhileGradFn* WhileGradient() {
  static WhileGradFn* fn = new WhileGradFn;
  return fn;
}

// One step of the backward walk: a node of the walk's frame, or a whole loop frame nested in it.
struct GradUnit {
  Node* node = nullptr;
  std::string frame;
};

// Topological order of the graph with every loop frame nested in `base` condensed into one unit,
// so that a loop's gradient is built after all its Exits' consumers and before its Enters'
// producers. Back edges out of NextIteration are ignored.
StatusOr<std::vector<GradUnit>> CondensedOrder(const Graph& g, const std::vector<Node*>& order,
                                               const ControlFlowInfo& info,
                                               const std::string& base) {
  std::vector<GradUnit> units;
  std::vector<int> unit_of(g.num_node_ids(), -1);
  std::map<std::string, int> frame_unit;
  for (Node* n : order) {
    std::string f = info.Knows(n) ? info.exec_frame(n) : base;
    if (f == base || !info.IsWithin(f, base)) {
      unit_of[n->id()] = static_cast<int>(units.size());
      units.push_back({n, ""});
      continue;
    }
    std::string child = info.ChildOnPath(f, base);
    auto [it, inserted] = frame_unit.emplace(child, static_cast<int>(units.size()));
    if (inserted) units.push_back({nullptr, child});
    unit_of[n->id()] = it->second;
  }
  std::vector<std::vector<int>> succ(units.size());
  std::vector<int> pending(units.size(), 0);
  for (Node* n : order)
    for (const Edge* e : n->out_edges()) {
      int a = unit_of[n->id()], b = unit_of[e->dst->id()];
      if (a == b || n->op() == "NextIteration") continue;
      succ[a].push_back(b);
      ++pending[b];
    }
  std::vector<GradUnit> sorted;
  std::vector<int> ready;
  for (int u = static_cast<int>(units.size()) - 1; u >= 0; --u)
    if (pending[u] == 0) ready.push_back(u);
  while (!ready.empty()) {
    int u = ready.back();
    ready.pop_back();
    sorted.push_back(units[u]);
    for (int v : succ[u])
      if (--pending[v] == 0) ready.push_back(v);
  }
  if (sorted.size() != units.size())
    return InvalidArgument("gradients: loop frames nested in '", base, "' form a cycle");
  return sorted;
}

class GradientBuilder {
 public:
  GradientBuilder(Graph* g, std::string scope, bool gate)
      : g_(g), scope_(std::move(scope)), gate_(gate) {}

  Status Build(const std::vector<NodeOut>& ys, const std::vector<NodeOut>& xs,
               const std::vector<NodeOut>& grad_ys, std::vector<NodeOut>* grad_xs) {
    if (!grad_ys.empty() && grad_ys.size() != ys.size())
      return InvalidArgument("AddSymbolicGradients: ", ys.size(), " ys but ", grad_ys.size(),
                             " grad_ys");
    ASSIGN_OR_RETURN(std::vector<Node*> order, g_->TopologicalOrder());
    ASSIGN_OR_RETURN(info_, ControlFlowInfo::Build(*g_, /*strict=*/false));
    const std::string base = ys.empty() ? "" : info_.frame(ys[0].node);
    ASSIGN_OR_RETURN(std::vector<GradUnit> units, CondensedOrder(*g_, order, info_, base));
    MarkRelevant(ys, xs);
    for (size_t i = 0; i < ys.size(); ++i) {
      NodeOut dy;
      if (grad_ys.empty()) {
        ASSIGN_OR_RETURN(dy, Make("OnesLike", {ys[i]}, "OnesLike"));
      } else {
        dy = grad_ys[i];
      }
      grads_[{ys[i].node->id(), ys[i].index}].push_back(dy);
    }
    std::set<Node*> x_nodes;
    for (const NodeOut& x : xs) x_nodes.insert(x.node);
    for (auto it = units.rbegin(); it != units.rend(); ++it) {
      if (!it->node) {
        RETURN_IF_ERROR(BackpropLoop(it->frame));
        continue;
      }
      Node* n = it->node;
      if (!relevant_.count(n->id()) || x_nodes.count(n)) continue;
      RETURN_IF_ERROR(Backprop(n));
    }
    grad_xs->clear();
    for (const NodeOut& x : xs) {
      ASSIGN_OR_RETURN(NodeOut total, SumGrads({x.node->id(), x.index}));
      if (!total.valid()) {
        ASSIGN_OR_RETURN(total, Make("ZerosLike", {x}, "ZerosLike"));
      }
      grad_xs->push_back(total);
    }
    return Status::OK();
  }

 private:
  // Nodes reachable forward from xs and backward from ys.
  void MarkRelevant(const std::vector<NodeOut>& ys, const std::vector<NodeOut>& xs) {
    std::set<int> forward;
    std::vector<Node*> stack;
    for (const NodeOut& x : xs) stack.push_back(x.node);
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (!forward.insert(n->id()).second) continue;
      for (const Edge* e : n->out_edges())
        if (!e->IsControlEdge()) stack.push_back(e->dst);
    }
    for (const NodeOut& y : ys) stack.push_back(y.node);
    std::set<int> backward;
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      if (!backward.insert(n->id()).second) continue;
      for (const Edge* e : n->in_edges())
        if (!e->IsControlEdge()) stack.push_back(e->src);
    }
    for (int id : forward)
      if (backward.count(id)) relevant_.insert(id);
  }

  StatusOr<NodeOut> Make(const std::string& op, const std::vector<NodeOut>& inputs,
                         const std::string& name) {
    NodeBuilder b(g_->NewName(scope_ + "/" + name), op);
    for (const NodeOut& in : inputs) b.Input(in);
    ASSIGN_OR_RETURN(Node * n, b.Finalize(g_));
    return NodeOut{n, 0};
  }

  // Sum of the gradients accumulated for one output; invalid if none.
  StatusOr<NodeOut> SumGrads(const OutKey& key) {
    auto it = grads_.find(key);
    if (it == grads_.end() || it->second.empty()) return NodeOut{};
    if (it->second.size() == 1) return it->second[0];
    NodeBuilder b(g_->NewName(scope_ + "/AddN"), "AddN");
    b.Input(it->second);
    ASSIGN_OR_RETURN(Node * n, b.Finalize(g_));
    it->second = {NodeOut{n, 0}};
    return NodeOut{n, 0};
  }

  Status Backprop(Node* n) {
    std::vector<NodeOut> dy(n->num_outputs());
    bool any = false;
    for (int i = 0; i < n->num_outputs(); ++i) {
      ASSIGN_OR_RETURN(dy[i], SumGrads({n->id(), i}));
      any = any || dy[i].valid();
    }
    if (!any) return Status::OK();
    if (GradientRegistry::Global()->IsNoGradient(n->op())) return Status::OK();
    const GradFn* fn = GradientRegistry::Global()->Lookup(n->op());
    if (!fn)
      return NotFound("no gradient registered for op '", n->op(), "' (node '", n->name(), "')");
    for (int i = 0; i < n->num_outputs(); ++i) {
      if (dy[i].valid()) continue;
      ASSIGN_OR_RETURN(dy[i], Make("ZerosLike", {NodeOut{n, i}}, n->name() + "/ZerosLike"));
    }
    GradContext ctx(g_, n, g_->NewName(scope_ + "/" + n->name()));
    std::vector<NodeOut> dx;
    Status s = (*fn)(&ctx, dy, &dx);
    if (!s.ok()) return s.WithPrefix("gradient of " + n->op() + " '" + n->name() + "': ");
    if (static_cast<int>(dx.size()) != n->num_inputs())
      return Internal("gradient of ", n->op(), " '", n->name(), "' returned ", dx.size(),
                      " gradients for ", n->num_inputs(), " inputs");
    // A gradient for an input that leads to no x is never used: drop it before gating, so that
    // the gate does not make the step compute it (the first convolution's Conv2DBackpropInput
    // of every convnet: the input gradient of the images).
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      if (!e || !relevant_.count(e->src->id())) dx[i] = NodeOut{};
    }
    if (gate_) RETURN_IF_ERROR(Gate(n, &dx));
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (!dx[i].valid()) continue;
      const Edge* e = n->input_edge(i);
      grads_[{e->src->id(), e->src_output}].push_back(dx[i]);
    }
    return Status::OK();
  }

  // GATE_OP (gradients.h): each of `dx` becomes an Identity that also waits for the others.
  Status Gate(Node* n, std::vector<NodeOut>* dx) {
    std::vector<Node*> producers;
    for (const NodeOut& d : *dx)
      if (d.valid()) producers.push_back(d.node);
    if (producers.size() < 2) return Status::OK();
    for (NodeOut& d : *dx) {
      if (!d.valid()) continue;
      NodeBuilder b(g_->NewName(scope_ + "/" + n->name() + "/tuple"), "Identity");
      b.Input(d);
      for (Node* p : producers)
        if (p != d.node) b.ControlInput(p);
      ASSIGN_OR_RETURN(Node * gated, b.Finalize(g_));
      d = NodeOut{gated, 0};
    }
    return Status::OK();
  }

  // A loop frame nested in the walk's frame is differentiated as a whole (see gradients.h).
  Status BackpropLoop(const std::string& frame) {
    std::map<Node*, NodeOut> exit_grads;
    bool any = false;
    for (Node* n : g_->nodes()) {
      if (n->op() != "Exit" || !info_.Knows(n) || info_.exec_frame(n) != frame) continue;
      ASSIGN_OR_RETURN(exit_grads[n], SumGrads({n->id(), 0}));
      any = any || exit_grads[n].valid();
    }
    if (!any) return Status::OK();
    const WhileGradFn* fn = WhileGradient();
    if (!*fn)
      return NotFound("no gradient builder for while loops registered (loop frame '", frame, "')");
    std::map<Node*, NodeOut> enter_grads;
    Status s = (*fn)(WhileGradArgs{g_, &info_, frame, exit_grads, scope_}, &enter_grads);
    if (!s.ok()) return s.WithPrefix("gradient of while loop '" + frame + "': ");
    for (const auto& [enter, dx] : enter_grads) {
      const Edge* e = enter->input_edge(0);
      if (dx.valid() && e && relevant_.count(e->src->id()))
        grads_[{e->src->id(), e->src_output}].push_back(dx);
    }
    return Status::OK();
  }

  Graph* g_;
  std::string scope_;
  bool gate_ = false;
  ControlFlowInfo info_;
  std::set<int> relevant_;
  std::map<OutKey, std::vector<NodeOut>> grads_;
};

}  // namespace

void RegisterWhileGradient(WhileGradFn fn) { *WhileGradient() = std::move(fn); }

Status AddSymbolicGradients(Graph* g, const std::vector<NodeOut>& ys,
                            const std::vector<NodeOut>& xs, const std::vector<NodeOut>& grad_ys,
                            std::vector<NodeOut>* grad_xs, const std::string& name_scope,
                            bool gate_gradients) {
  GradientBuilder b(g, name_scope, gate_gradients);
  return b.Build(ys, xs, grad_ys, grad_xs);
}

}  // namespace fb
