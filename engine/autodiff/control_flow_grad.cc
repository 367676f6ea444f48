// Gradients of the conditional ops (whitepaper 4.1 + 4.4), after TensorFlow's control_flow_grad.py:
// the gradient of a Merge is routed back to the input that was taken (a Switch on the Merge's
// value_index), and the gradient of a Switch merges the gradients of its two outputs, one of
// which is dead at run time. Loops are differentiated as a whole (gradients.h, WhileGradArgs),
// so Enter, Exit and NextIteration have no per-node gradient.
#include "engine/autodiff/gradient_registry.h"

namespace fb {

namespace {

using Grads = std::vector<NodeOut>;

// dx[i] = Switch(dy, value_index == i):1, live only when input i was the one forwarded.
Status MergeGrad(GradContext* c, const Grads& dy, Grads* dx) {
  const NodeOut value_index = c->output(1);
  for (int i = 0; i < c->node()->num_inputs(); ++i) {
    ASSIGN_OR_RETURN(NodeOut idx, c->Const(Tensor::Scalar<int32_t>(i)));
    ASSIGN_OR_RETURN(NodeOut taken, c->Op("Equal", {value_index, idx}));
    ASSIGN_OR_RETURN(Node * sw, c->Builder("Switch", "Switch").Input(dy[0]).Input(taken)
                                    .Finalize(c->graph()));
    dx->push_back({sw, 1});
  }
  return Status::OK();
}

// d data = Merge(d output_false, d output_true); the predicate gets none.
Status SwitchGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(Node * m, c->Builder("Merge", "Merge").Input(Grads{dy[0], dy[1]})
                                 .Finalize(c->graph()));
  *dx = {NodeOut{m, 0}, NodeOut{}};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(Merge, MergeGrad);
REGISTER_GRADIENT(Switch, SwitchGrad);
REGISTER_NO_GRADIENT(LoopCond);
REGISTER_NO_GRADIENT(ControlTrigger);

}  // namespace fb
