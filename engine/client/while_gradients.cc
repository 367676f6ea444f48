// The gradient of a while loop (whitepaper 4.1 + 4.4), after TensorFlow's GradLoopState: a
// gradient loop runs as many iterations as the forward loop did, backwards. Each iteration
// differentiates the forward body (AddSymbolicGradients on body outputs w.r.t. body inputs and
// loop invariants); every forward value that this gradient reads is saved by the forward loop in
// a ForwardAccumulator keyed by the forward iteration index and popped by the gradient loop. The
// forward loop gets an iteration counter, whose increment waits (through a ControlTrigger) for
// the iteration's pushes, so the count leaves the loop only after every value was saved.
// Gradients of loop invariants are summed over iterations. Registered with autodiff at startup.
#include <map>

#include "engine/autodiff/gradients.h"
#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/state_ops.h"

namespace fb {

namespace {

struct LoopVar {
  Node* enter;
  Node* exit;
  Output body_in;   // Switch:1
  Output body_out;  // the NextIteration's input
};

struct ForwardLoop {
  int parallel_iterations = 10;
  Node* loop_cond = nullptr;
  std::vector<LoopVar> vars;
  std::vector<Node*> invariants;  // constant Enters
};

Node* Consumer(Node* n, int port, const std::string& op) {
  for (const Edge* e : n->out_edges())
    if (e->src_output == port && e->dst->op() == op) return e->dst;
  return nullptr;
}

Output InputOf(Node* n, int i) {
  const Edge* e = n->input_edge(i);
  return e ? Output(e->src, e->src_output) : Output();
}

// Finds the Enter/Merge/Switch/Exit/NextIteration pattern of frame `frame` (as ops::WhileLoop
// builds it).
StatusOr<ForwardLoop> RecoverLoop(const Graph& g, const ControlFlowInfo& info,
                                  const std::string& frame) {
  ForwardLoop loop;
  for (Node* n : g.nodes()) {
    if (n->op() != "Enter" || !info.Knows(n) || info.frame(n) != frame) continue;
    bool is_constant = false;
    int64_t pi = 10;
    (void)GetNodeAttr(n->def().attrs, "is_constant", &is_constant);
    (void)GetNodeAttr(n->def().attrs, "parallel_iterations", &pi);
    loop.parallel_iterations = static_cast<int>(pi);
    if (is_constant) {
      loop.invariants.push_back(n);
      continue;
    }
    Node* merge = Consumer(n, 0, "Merge");
    Node* sw = merge ? Consumer(merge, 0, "Switch") : nullptr;
    Node* exit = sw ? Consumer(sw, 0, "Exit") : nullptr;
    Node* next = merge && merge->num_inputs() == 2 ? InputOf(merge, 1).node() : nullptr;
    if (!exit || !next || next->op() != "NextIteration")
      return InvalidArgument("Enter '", n->name(),
                             "' does not start an Enter/Merge/Switch/Exit/NextIteration loop "
                             "variable (build loops with ops::WhileLoop)");
    loop.loop_cond = InputOf(sw, 1).node();
    loop.vars.push_back({n, exit, Output(sw, 1), InputOf(next, 0)});
  }
  if (loop.vars.empty()) return InvalidArgument("no loop variables found");
  return loop;
}

class WhileGradBuilder {
 public:
  explicit WhileGradBuilder(const WhileGradArgs& a)
      : a_(a), root_(Scope::ForGraph(a.graph)), fwd_(root_.NewSubScope(a.frame + "_grad")) {}

  Status Build(std::map<Node*, NodeOut>* enter_grads) {
    ASSIGN_OR_RETURN(loop_, RecoverLoop(*a_.graph, *a_.info, a_.frame));
    for (size_t k = 0; k < loop_.vars.size(); ++k)
      if (DataTypeIsFloating(loop_.vars[k].enter->output_type(0))) float_vars_.push_back(k);
    for (Node* inv : loop_.invariants)
      if (DataTypeIsFloating(inv->output_type(0))) float_invs_.push_back(inv);
    parent_ = a_.info->parent(a_.frame);
    AddForwardCounter();
    RETURN_IF_ERROR(root_.status());
    std::vector<Output> exits = BuildGradientLoop();
    RETURN_IF_ERROR(root_.status());
    for (size_t i = 0; i < float_vars_.size(); ++i)
      (*enter_grads)[loop_.vars[float_vars_[i]].enter] = exits[1 + i];
    for (size_t m = 0; m < float_invs_.size(); ++m)
      (*enter_grads)[float_invs_[m]] = exits[1 + float_vars_.size() + m];
    return Status::OK();
  }

 private:
  // Runs `fn`, marking the nodes it adds to the forward computation with the frame their values
  // live in, so that enclosing gradient builders leave them alone and know where they live.
  template <typename Fn>
  void Forward(const std::string& frame, Fn fn) {
    const int first = a_.graph->num_node_ids();
    fn();
    for (int id = first; id < a_.graph->num_node_ids(); ++id)
      if (Node* n = a_.graph->node(id)) n->mutable_def()->attrs[ops::kNoCaptureAttr] = frame;
  }

  // The frame x's value lives in: from the info, or from the mark of a forward node added since.
  std::string FrameOf(const Node* n) const {
    if (a_.info->Knows(n)) return a_.info->frame(n);
    std::string frame;
    (void)GetNodeAttr(n->def().attrs, ops::kNoCaptureAttr, &frame);
    return frame;
  }

  // In the loop's parent frame: a value that exists exactly when the loop runs.
  Output ParentAnchor() {
    if (!anchor_.valid()) anchor_ = ops::Identity(fwd_, InputOf(loop_.vars[0].enter, 0));
    return anchor_;
  }

  // i = 0, 1, ... per forward iteration (index_), and the number of iterations (count_).
  void AddForwardCounter() {
    Output zero;
    Forward(parent_, [&] {
      zero = ops::Const(fwd_.WithControlDependencies({ParentAnchor()}), int32_t{0});
    });
    Node *merge = nullptr, *sw = nullptr;
    Output next;
    Forward(a_.frame, [&] {
      Output enter = ops::Enter(fwd_, zero, a_.frame, false, loop_.parallel_iterations);
      merge = ops::AddOpWithList(fwd_.WithOpName("Merge"), "Merge", {{enter, enter}});
      if (!merge) return;
      sw = ops::AddOp(fwd_.WithOpName("Switch"), "Switch",
                      {Output(merge, 0), Output(loop_.loop_cond, 0)});
      if (!sw) return;
      index_ = ops::Identity(fwd_.WithOpName("index"), Output(sw, 1));
      increment_ = ops::Add(fwd_, index_, ops::OnesLike(fwd_, index_));
      next = ops::Op(fwd_.WithOpName("NextIteration"), "NextIteration", {increment_});
    });
    if (!sw || !fwd_.ok()) return;
    Forward(parent_, [&] { count_ = ops::Op(fwd_.WithOpName("count"), "Exit", {Output(sw, 0)}); });
    if (!fwd_.ok()) return;
    a_.graph->RemoveEdge(merge->input_edge(1));
    a_.graph->AddEdge(next.node(), 0, merge, 1);
  }

  // Saves forward value x each iteration in its own accumulator; returns its value for the
  // gradient iteration j_.
  Output SaveAndRestore(const Scope& gs, Output x) {
    Output handle;
    Forward(parent_, [&] {
      handle = ops::Op(fwd_.WithControlDependencies({ParentAnchor()}), "ForwardAccumulator", {});
    });
    Forward(a_.frame, [&] {
      if (!sync_) {
        sync_ = ops::AddOp(fwd_.WithOpName("sync"), "ControlTrigger", {});
        if (sync_ && increment_.valid()) a_.graph->AddControlEdge(sync_, increment_.node());
      }
      Output in_fwd = ops::Enter(fwd_, handle, a_.frame, true, loop_.parallel_iterations);
      Node* push = ops::AddOp(fwd_.WithOpName("push"), "AccumulatorPush", {in_fwd, index_, x});
      if (push && sync_) a_.graph->AddControlEdge(push, sync_);
      ColocateWith(handle, in_fwd.node());
      ColocateWith(handle, push);
    });
    Output in_grad =
        ops::Enter(gs.WithOpName("Enter"), handle, grad_frame_, true, loop_.parallel_iterations);
    Output pop =
        ops::Op(gs.WithOpName("pop"), "AccumulatorPop", {in_grad, j_}, {{"T", x.type()}});
    ColocateWith(handle, in_grad.node());
    ColocateWith(handle, pop.node());
    return pop;
  }

  // The accumulator lives in its device's ResourceMgr and its handle is a host string (which
  // cannot be sent to a GPU): its Enters, Push and Pop are placed with the ForwardAccumulator.
  static void ColocateWith(const Output& handle, Node* n) {
    if (handle.node() == nullptr || n == nullptr) return;
    n->mutable_def()->attrs["_class"] =
        std::vector<std::string>{"loc:@" + handle.node()->name()};
  }

  Output Capture(const Scope& gs, Output x) {
    Node* src = x.node();
    const ControlFlowInfo& info = *a_.info;
    bool is_constant = false;
    if (src->op() == "Enter" && info.Knows(src) && info.frame(src) == a_.frame &&
        GetNodeAttr(src->def().attrs, "is_constant", &is_constant).ok() && is_constant)
      return ops::Enter(gs.WithOpName("Enter"), InputOf(src, 0), grad_frame_, true,
                        loop_.parallel_iterations);
    if (FrameOf(src) == a_.frame) return SaveAndRestore(gs, x);
    return ops::Enter(gs.WithOpName("Enter"), x, grad_frame_, true, loop_.parallel_iterations);
  }

  std::vector<Output> GradientBody(const Scope& s, const std::vector<Output>& v) {
    j_ = ops::Sub(s.WithOpName("index"), v[0], ops::OnesLike(s, v[0]));
    std::vector<NodeOut> ys, xs, grad_ys, dx;
    for (size_t i = 0; i < float_vars_.size(); ++i) {
      const LoopVar& var = loop_.vars[float_vars_[i]];
      ys.push_back(var.body_out);
      xs.push_back(var.body_in);
      grad_ys.push_back(v[1 + i]);
    }
    for (Node* inv : float_invs_) xs.push_back({inv, 0});
    Status st = AddSymbolicGradients(a_.graph, ys, xs, grad_ys, &dx, grad_frame_ + "/body");
    if (!st.ok()) {
      s.UpdateStatus(st);
      return {};
    }
    std::vector<Output> next{j_};
    for (size_t i = 0; i < float_vars_.size(); ++i) next.push_back(dx[i]);
    for (size_t m = 0; m < float_invs_.size(); ++m) {
      Output acc = v[1 + float_vars_.size() + m];
      next.push_back(ops::Add(s, acc, dx[float_vars_.size() + m]));
    }
    return next;
  }

  std::vector<Output> BuildGradientLoop() {
    Scope gs = root_.NewSubScope(a_.name_scope);
    std::vector<Output> init{count_};
    for (size_t k : float_vars_) {
      const LoopVar& var = loop_.vars[k];
      auto it = a_.exit_grads.find(var.exit);
      bool has = it != a_.exit_grads.end() && it->second.valid();
      init.push_back(has ? Output(it->second) : ops::ZerosLike(gs, Output(var.exit, 0)));
    }
    for (Node* inv : float_invs_) init.push_back(ops::ZerosLike(gs, InputOf(inv, 0)));
    ops::WhileOptions opts;
    opts.parallel_iterations = loop_.parallel_iterations;
    opts.frame_name = grad_frame_ = gs.GetUniqueName("while");
    opts.capture = [this](const Scope& cs, Output x) { return Capture(cs, x); };
    return ops::WhileLoop(
        gs, init,
        [](const Scope& s, const std::vector<Output>& v) {
          return ops::Greater(s, v[0], ops::Const(s, int32_t{0}));
        },
        [this](const Scope& s, const std::vector<Output>& v) { return GradientBody(s, v); }, opts);
  }

  const WhileGradArgs& a_;
  Scope root_, fwd_;
  ForwardLoop loop_;
  std::vector<size_t> float_vars_;
  std::vector<Node*> float_invs_;
  Output anchor_, index_, increment_, count_, j_;
  Node* sync_ = nullptr;
  std::string grad_frame_, parent_;
};

struct Registrar {
  Registrar() {
    RegisterWhileGradient([](const WhileGradArgs& a, std::map<Node*, NodeOut>* enter_grads) {
      WhileGradBuilder b(a);
      return b.Build(enter_grads);
    });
  }
} registrar;

}  // namespace

}  // namespace fb
