// The fused LSTM cell of TensorFlow's contrib/rnn (lstm_ops.cc): LSTMBlockCell, one time step of
// an LSTM (Hochreiter and Schmidhuber 1997; forget bias of Gers et al. 2000; optional peephole
// connections of Gers and Schmidhuber 2000) in one kernel, and LSTMBlockCellGrad, its backward.
// Shapes (B batch, I input, H the previous output's width, C cells):
//   x [B, I], cs_prev [B, C], h_prev [B, H], w [I + H, 4C], wci/wcf/wco [C], b [4C]
//   -> i, cs, f, o, ci, co, h, each [B, C].
// TensorFlow requires H == C; flowbench allows any H, so that a projected LSTM (LSTMP, Sak et al.
// 2014: h_prev is the previous step's projection [B, P]) uses the cell and a MatMul after it.
// Gate layout in w and b: icfo = [input gate, cell input, forget gate, output gate] (TensorFlow's).
// Kernels: kernels/cpu/lstm_kernels.cc, kernels/cuda/lstm_ops.cc; gradient:
// engine/autodiff/rnn_grad_lstm.cc. dtype float, and double for the numerical gradient checks.
#include "engine/ops/nn_ops_common.h"

namespace fb {
namespace {

// Checks that input `i` has rank `rank` and merges the size of its dim `d` into *dim.
Status MergeInputDim(InferenceContext* c, int i, int rank, int d, const char* what,
                     int64_t* dim) {
  const PartialShape& s = c->input(i);
  if (!s) return Status::OK();
  if (s->rank() != rank)
    return c->Error(what, " must be ", rank, "-D, got shape ", s->DebugString());
  return c->MergeDim(*dim, s->dim_size(d), dim, std::string(what) + " dim " + std::to_string(d));
}

// The sizes both ops check: batch B, cells C, and x, h_prev, w agreeing on I + H.
struct LstmDims {
  int64_t batch = -1, cells = -1;
};

StatusOr<LstmDims> CheckCellInputs(InferenceContext* c) {
  LstmDims d;
  int64_t input = -1, hidden = -1, gates = -1, rows = -1;
  RETURN_IF_ERROR(MergeInputDim(c, 0, 2, 0, "x", &d.batch));
  RETURN_IF_ERROR(MergeInputDim(c, 0, 2, 1, "x", &input));
  RETURN_IF_ERROR(MergeInputDim(c, 1, 2, 0, "cs_prev", &d.batch));
  RETURN_IF_ERROR(MergeInputDim(c, 1, 2, 1, "cs_prev", &d.cells));
  RETURN_IF_ERROR(MergeInputDim(c, 2, 2, 0, "h_prev", &d.batch));
  RETURN_IF_ERROR(MergeInputDim(c, 2, 2, 1, "h_prev", &hidden));
  RETURN_IF_ERROR(MergeInputDim(c, 3, 2, 0, "w", &rows));
  RETURN_IF_ERROR(MergeInputDim(c, 3, 2, 1, "w", &gates));
  for (int i = 4; i < 7; ++i)
    RETURN_IF_ERROR(MergeInputDim(c, i, 1, 0, i == 4 ? "wci" : i == 5 ? "wcf" : "wco", &d.cells));
  RETURN_IF_ERROR(MergeInputDim(c, 7, 1, 0, "b", &gates));
  if (gates >= 0 && gates % 4 != 0)
    return c->Error("w and b must have 4 * cells columns, got ", gates);
  if (gates >= 0) RETURN_IF_ERROR(c->MergeDim(d.cells, gates / 4, &d.cells, "w columns / 4"));
  if (input >= 0 && hidden >= 0 && rows >= 0 && rows != input + hidden)
    return c->Error("w must have x's ", input, " + h_prev's ", hidden, " rows, got ", rows);
  return d;
}

Status LstmBlockCellShapeFn(InferenceContext* c) {
  ASSIGN_OR_RETURN(LstmDims d, CheckCellInputs(c));
  for (int i = 0; i < 7; ++i) c->set_output(i, TensorShape({d.batch, d.cells}));
  return Status::OK();
}

// Inputs 8-15 (i, cs, f, o, ci, co, cs_grad, h_grad) are [B, C] like cs_prev.
Status LstmBlockCellGradShapeFn(InferenceContext* c) {
  ASSIGN_OR_RETURN(LstmDims d, CheckCellInputs(c));
  static const char* const kNames[] = {"i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad"};
  for (int i = 8; i < 16; ++i) {
    RETURN_IF_ERROR(MergeInputDim(c, i, 2, 0, kNames[i - 8], &d.batch));
    RETURN_IF_ERROR(MergeInputDim(c, i, 2, 1, kNames[i - 8], &d.cells));
  }
  c->set_output(0, TensorShape({d.batch, d.cells}));
  c->set_output(1, TensorShape({d.batch, d.cells < 0 ? -1 : 4 * d.cells}));
  for (int i = 2; i < 5; ++i) c->set_output(i, TensorShape({d.cells}));
  return Status::OK();
}

OpDefBuilder& CellInputs(OpDefBuilder& b) {
  return b.Input("x: T").Input("cs_prev: T").Input("h_prev: T").Input("w: T").Input("wci: T")
      .Input("wcf: T").Input("wco: T").Input("b: T");
}

OpDefBuilder LstmBlockCellDef() {
  OpDefBuilder b("LSTMBlockCell");
  CellInputs(b);
  b.Output("i: T").Output("cs: T").Output("f: T").Output("o: T").Output("ci: T").Output("co: T");
  b.Output("h: T");
  return b.Attr("forget_bias: float = 1.0")
      .Attr("cell_clip: float = 3.0")
      .Attr("use_peephole: bool = false")
      .Attr("T: {float, double}")
      .SetShapeFn(LstmBlockCellShapeFn)
      .Doc(
          "One LSTM step. xh = [x, h_prev]; [i, ci, f, o] = xh * w + b (icfo column blocks); "
          "i = sigmoid(i + wci * cs_prev), f = sigmoid(f + forget_bias + wcf * cs_prev), "
          "ci = tanh(ci), cs = ci * i + cs_prev * f, clipped to [-cell_clip, cell_clip] when "
          "cell_clip > 0, o = sigmoid(o + wco * cs), co = tanh(cs), h = co * o. The peephole "
          "terms (wci, wcf, wco) only when use_peephole. All outputs [batch, cells].");
}

OpDefBuilder LstmBlockCellGradDef() {
  OpDefBuilder b("LSTMBlockCellGrad");
  CellInputs(b);
  b.Input("i: T").Input("cs: T").Input("f: T").Input("o: T").Input("ci: T").Input("co: T");
  b.Input("cs_grad: T").Input("h_grad: T");
  b.Output("cs_prev_grad: T").Output("dicfo: T").Output("wci_grad: T").Output("wcf_grad: T");
  b.Output("wco_grad: T");
  return b.Attr("use_peephole: bool")
      .Attr("T: {float, double}")
      .SetShapeFn(LstmBlockCellGradShapeFn)
      .Doc(
          "Backward of LSTMBlockCell given the forward's inputs and outputs and the gradients "
          "of cs and h: dicfo [batch, 4 * cells] is the gradient of the gate pre-activations "
          "(icfo), from which the caller computes the x, h_prev, w and b gradients with "
          "MatMuls and BiasAddGrad; cs_prev_grad [batch, cells]; wci/wcf/wco_grad [cells] "
          "(zero without use_peephole). The cell clip is not differentiated (as TensorFlow).");
}

}  // namespace

static register_op::Registrar fb_lstm_block_cell_registrar(LstmBlockCellDef());
static register_op::Registrar fb_lstm_block_cell_grad_registrar(LstmBlockCellGradDef());

}  // namespace fb
