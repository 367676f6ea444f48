#pragma once
// One LSTM time step, shared by the language models (experiments/models/lstm_lm.h, character
// level; experiments/models/lstm_lm_word.h, word level): the cell of Hochreiter and Schmidhuber
// (1997) with a forget-gate bias (Gers et al. 2000) and an optional projection of the output
// (LSTMP, Sak et al. 2014), as TensorFlow's LSTMCell(num_proj=...):
//   z = [x, r] W + b, gates (i, g, f, o) side by side in z [batch, 4 * cells] (TensorFlow's
//   LSTMBlockCell "icfo" order: input gate, cell input, forget gate, output gate)
//   c' = sigmoid(f + forget_bias) * c + sigmoid(i) * tanh(g)
//   r' = sigmoid(o) * tanh(c')            without projection   [batch, cells]
//   r' = (sigmoid(o) * tanh(c')) W_proj   with projection      [batch, proj]
// Parameters: W [input + out, 4 * cells], b [4 * cells], W_proj [cells, proj] (out = proj with a
// projection, else cells): (input + out) * 4 * cells + 4 * cells + cells * proj.
// Two builds of the same function: TensorFlow's fused LSTMBlockCell op (engine/client/rnn_ops.h;
// one kernel for the GEMM and the gates, one LSTMBlockCellGrad in the backward) followed by the
// projection's MatMul, or the composite of basic ops (MatMul, Split, Sigmoid, Tanh, Mul, Add).
#include "engine/client/scope.h"

namespace fb::experiments {

struct LstmCellWeights {
  Output w;       // [input + out, 4 * cells]
  Output b;       // [4 * cells]
  Output w_proj;  // [cells, proj]; invalid (default): no projection
  float forget_bias = 1.0f;
  // [cells] zeros (the fused op's unused peephole inputs): valid selects the fused LSTMBlockCell,
  // invalid (default) the composite. Build it once, outside any loop: FusedCellZeros.
  Output peephole_zeros;
};

// The [cells] zeros that select the fused cell (LstmCellWeights::peephole_zeros).
Output FusedCellZeros(const Scope& s, int64_t cells);

// c: the cell state [batch, cells]; r: the output fed to the next step and the layer above
// ([batch, proj] or [batch, cells]).
struct LstmState {
  Output c, r;
};

// One step from input x [batch, input] and the previous state. float tensors. Errors stick to
// the Scope.
LstmState LstmCell(const Scope& s, const LstmCellWeights& weights, Output x, const LstmState& prev);

}  // namespace fb::experiments
