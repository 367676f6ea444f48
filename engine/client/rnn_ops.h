#pragma once
// Client wrapper of the fused LSTM cell (engine/ops/rnn_ops_lstm.cc, TensorFlow's LSTMBlockCell).
// Shapes: x [B, I], cs_prev [B, C], h_prev [B, H], w [I + H, 4C] with gate columns in icfo order
// (input gate, cell input, forget gate, output gate), b [4C], peepholes wci/wcf/wco [C] (read only
// when use_peephole; pass zeros otherwise, as TensorFlow's LSTMBlockCell does). float or double.
// Differentiable (engine/autodiff/rnn_grad_lstm.cc) through cs and h.
#include "engine/client/scope.h"

namespace fb::ops {

struct LSTMBlockCellAttrs {
  float forget_bias = 1.0f;
  float cell_clip = -1.0f;  // > 0: cs is clipped to [-cell_clip, cell_clip]; TensorFlow's
                            // LSTMBlockCell passes -1 (none), the op's own default is 3
  bool use_peephole = false;
};

// Each [B, C]: the gates i, f, o (after the sigmoid), ci = tanh(cell input), the new cell state
// cs, co = tanh(cs) and the output h = co * o.
struct LSTMBlockCellOutputs {
  Output i, cs, f, o, ci, co, h;
};

LSTMBlockCellOutputs LSTMBlockCell(const Scope& s, Output x, Output cs_prev, Output h_prev,
                                   Output w, Output wci, Output wcf, Output wco, Output b,
                                   const LSTMBlockCellAttrs& attrs = {});

}  // namespace fb::ops
