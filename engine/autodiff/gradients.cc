#include "engine/autodiff/gradients.h"

#include <map>
#include <set>

#include "engine/autodiff/gradient_registry.h"

namespace fb {

namespace {

using OutKey = std::pair<int, int>;  // (node id, output index)

class GradientBuilder {
 public:
  GradientBuilder(Graph* g, std::string scope) : g_(g), scope_(std::move(scope)) {}

  Status Build(const std::vector<NodeOut>& ys, const std::vector<NodeOut>& xs,
               const std::vector<NodeOut>& grad_ys, std::vector<NodeOut>* grad_xs) {
    if (!grad_ys.empty() && grad_ys.size() != ys.size())
      return InvalidArgument("AddSymbolicGradients: ", ys.size(), " ys but ", grad_ys.size(),
                             " grad_ys");
    ASSIGN_OR_RETURN(std::vector<Node*> order, g_->TopologicalOrder());
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
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      Node* n = *it;
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
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (!dx[i].valid()) continue;
      const Edge* e = n->input_edge(i);
      if (e && relevant_.count(e->src->id())) grads_[{e->src->id(), e->src_output}].push_back(dx[i]);
    }
    return Status::OK();
  }

  Graph* g_;
  std::string scope_;
  std::set<int> relevant_;
  std::map<OutKey, std::vector<NodeOut>> grads_;
};

}  // namespace

Status AddSymbolicGradients(Graph* g, const std::vector<NodeOut>& ys,
                            const std::vector<NodeOut>& xs, const std::vector<NodeOut>& grad_ys,
                            std::vector<NodeOut>* grad_xs, const std::string& name_scope) {
  GradientBuilder b(g, name_scope);
  return b.Build(ys, xs, grad_ys, grad_xs);
}

}  // namespace fb
