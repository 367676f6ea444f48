// Gradient of LSTMBlockCell (engine/ops/rnn_ops_lstm.cc), after TensorFlow's contrib/rnn
// lstm_ops.py (_LSTMBlockCellGrad): one LSTMBlockCellGrad node gives dicfo, the gradient of the
// gate pre-activations, and cs_prev_grad; then, with xh = [x, h_prev]:
//   xh_grad = dicfo w^T (split into x_grad and h_prev_grad as Concat's gradient splits it),
//   w_grad = xh^T dicfo,  b_grad = BiasAddGrad(dicfo) (the sum over the batch),
//   wci/wcf/wco_grad from the grad op (zero without peepholes).
// Only the gradients of cs and h are used: i, f, o, ci and co are intermediate values the
// forward exposes for the backward, not differentiable outputs (as TensorFlow). Missing output
// gradients arrive as ZerosLike (engine/autodiff/gradients.cc).
#include "engine/autodiff/math_grad_util.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

// x_grad and h_prev_grad from xh_grad: the registered ConcatV2 gradient applied to the xh node.
Status SplitXhGrad(GradContext* c, Node* xh, NodeOut xh_grad, NodeOut* x_grad,
                   NodeOut* h_prev_grad) {
  const GradFn* concat_grad = GradientRegistry::Global()->Lookup("ConcatV2");
  if (!concat_grad) return Internal("no gradient registered for ConcatV2");
  GradContext xh_context(c->graph(), xh, xh->name());
  Grads parts;
  RETURN_IF_ERROR((*concat_grad)(&xh_context, {xh_grad}, &parts));
  *x_grad = parts.at(0);
  *h_prev_grad = parts.at(1);
  return Status::OK();
}

Status LstmBlockCellGradFn(GradContext* c, const Grads& dy, Grads* dx) {
  bool use_peephole = false;
  RETURN_IF_ERROR(c->GetAttr("use_peephole", &use_peephole));
  const NodeOut x = c->input(0), h_prev = c->input(2), w = c->input(3);
  Grads inputs;
  for (int i = 0; i < 8; ++i) inputs.push_back(c->input(i));
  for (int i = 0; i < 6; ++i) inputs.push_back(c->output(i));  // i, cs, f, o, ci, co
  inputs.push_back(dy[1]);                                     // cs_grad
  inputs.push_back(dy[6]);                                     // h_grad
  ASSIGN_OR_RETURN(NodeOut g, c->Op("LSTMBlockCellGrad", inputs, {{"use_peephole", use_peephole}}));
  const NodeOut dicfo{g.node, 1};
  ASSIGN_OR_RETURN(NodeOut axis, grad::Scalar(c, DataType::kInt32, 1));
  NodeBuilder concat = c->Builder("xh", "ConcatV2");
  concat.Input(std::vector<NodeOut>{x, h_prev}).Input(axis);
  ASSIGN_OR_RETURN(Node * xh, concat.Finalize(c->graph()));
  ASSIGN_OR_RETURN(NodeOut xh_grad, c->Op("MatMul", {dicfo, w}, {{"transpose_b", true}}));
  NodeOut x_grad, h_prev_grad;
  RETURN_IF_ERROR(SplitXhGrad(c, xh, xh_grad, &x_grad, &h_prev_grad));
  ASSIGN_OR_RETURN(NodeOut w_grad,
                   c->Op("MatMul", {NodeOut{xh, 0}, dicfo}, {{"transpose_a", true}}));
  ASSIGN_OR_RETURN(NodeOut b_grad, c->Op("BiasAddGrad", {dicfo}));
  *dx = {x_grad,
         NodeOut{g.node, 0},
         h_prev_grad,
         w_grad,
         NodeOut{g.node, 2},
         NodeOut{g.node, 3},
         NodeOut{g.node, 4},
         b_grad};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(LSTMBlockCell, LstmBlockCellGradFn);

}  // namespace fb
