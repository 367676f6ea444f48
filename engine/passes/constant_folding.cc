#include "engine/passes/constant_folding.h"

#include <set>

#include "engine/framework/op_kernel.h"

namespace fb {

namespace {

// A process-wide host device for evaluating kernels at graph-construction time. Never
// destroyed: folded tensors may outlive any pass.
Device* FoldingDevice() {
  static Device* device = new CpuDevice("/job:localhost/replica:0/task:0/device:CPU:0", 1);
  return device;
}

// Control-flow ops (4.4) move values between frames or make them dead: their output is not
// their inputs' function, so a Const in their place would leave its loop frame or its branch.
bool IsControlFlow(const Node& n) {
  static const std::set<std::string> kOps = {"Switch", "Merge", "Enter", "Exit", "NextIteration",
                                             "LoopCond", "ControlTrigger"};
  return kOps.count(n.op()) > 0;
}

bool Foldable(const Node& n) {
  if (n.is_stateful() || n.num_inputs() == 0 || n.num_outputs() == 0 || n.op() == "Const" ||
      IsControlFlow(n) || n.op()[0] == '_')
    return false;
  for (int i = 0; i < n.num_inputs(); ++i) {
    if (n.input_is_ref(i)) return false;
    const Edge* e = n.input_edge(i);
    if (!e || e->src->op() != "Const") return false;
  }
  for (int i = 0; i < n.num_outputs(); ++i)
    if (n.output_is_ref(i)) return false;
  return KernelRegistry::Global()->HasKernel(DEVICE_CPU, n.def());
}

// Runs n's CPU kernel on its constant inputs. An error status when the kernel fails or an output
// is missing or too large.
StatusOr<std::vector<Tensor>> Evaluate(const Node& n) {
  ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                   KernelRegistry::Global()->CreateKernel(FoldingDevice(), n.def()));
  std::vector<TensorValue> inputs(static_cast<size_t>(n.num_inputs()));
  for (int i = 0; i < n.num_inputs(); ++i)
    RETURN_IF_ERROR(GetNodeAttr(n.input_edge(i)->src->def().attrs, "value",
                                &inputs[static_cast<size_t>(i)].tensor));
  OpKernelContext::Params params;
  params.device = FoldingDevice();
  params.kernel = kernel.get();
  params.inputs = &inputs;
  OpKernelContext ctx(&params);
  FoldingDevice()->Compute(kernel.get(), &ctx);  // out of memory is a Status, not an abort
  RETURN_IF_ERROR(ctx.status());
  std::vector<Tensor> outs;
  for (int i = 0; i < n.num_outputs(); ++i) {
    const Tensor& t = ctx.output_value(i).tensor;
    if (!t.IsInitialized() || ctx.output_is_dead(i)) return Internal("no output ", i);
    if (static_cast<int64_t>(t.TotalBytes()) > kMaxFoldedBytes) return OutOfRange("too large");
    outs.push_back(t.DeepCopy(DefaultCpuAllocator()));
  }
  return outs;
}

// Replaces n by one Const per output (named "<n>/folded_<port>"), then removes n and Const
// inputs it leaves without consumers.
void Replace(Graph* g, Node* n, const std::vector<Tensor>& values) {
  std::vector<Node*> consts;
  for (size_t i = 0; i < values.size(); ++i) {
    NodeDef def{g->NewName(n->name() + "/folded_" + std::to_string(i)), "Const", {},
                n->requested_device(), {{"value", values[i]}, {"dtype", values[i].dtype()}}};
    auto c = g->AddNode(def);
    FB_CHECK(c.ok()) << c.status().ToString();
    (*c)->set_assigned_device(n->assigned_device());
    consts.push_back(*c);
  }
  // The folded value waits for what n and its Const inputs waited for: a Const with control
  // inputs (one in a loop frame, or a materialized shape) keeps its frame and deadness that way.
  std::set<Node*> inputs, waits;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) {
      waits.insert(e->src);
    } else {
      inputs.insert(e->src);
      for (const Edge* ce : e->src->in_edges())
        if (ce->IsControlEdge()) waits.insert(ce->src);
    }
  }
  for (Node* w : waits)
    for (Node* c : consts) g->AddControlEdge(w, c);
  std::vector<const Edge*> outs = n->out_edges();
  for (const Edge* e : outs) {
    Node* dst = e->dst;
    int port = e->src_output, dst_input = e->dst_input;
    g->RemoveEdge(e);
    if (port == kControlSlot) {
      for (Node* c : consts) g->AddControlEdge(c, dst);
    } else {
      g->AddEdge(consts[static_cast<size_t>(port)], 0, dst, dst_input);
    }
  }
  g->RemoveNode(n);
  for (Node* in : inputs)
    if (in->out_edges().empty()) g->RemoveNode(in);
}

}  // namespace

PassReport FoldConstants(Graph* g) {
  PassReport report;
  report.pass = "constant_folding";
  auto order = g->TopologicalOrder();
  if (!order.ok()) return report;
  for (Node* n : *order) {
    if (!Foldable(*n)) continue;
    auto values = Evaluate(*n);
    if (!values.ok()) continue;
    report.changes.push_back("folded '" + n->name() + "' (" + n->op() + ")");
    Replace(g, n, *values);
  }
  report.num_changes = static_cast<int>(report.changes.size());
  return report;
}

namespace {
class ConstantFoldingPass : public GraphPass {
 public:
  PassPhase phase() const override { return PassPhase::kBeforePlacement; }
  StatusOr<PassReport> Run(Graph* g, const PassContext&) override { return FoldConstants(g); }
};
}  // namespace

REGISTER_GRAPH_PASS("constant_folding", ConstantFoldingPass);

}  // namespace fb
