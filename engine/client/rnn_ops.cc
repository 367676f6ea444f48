#include "engine/client/rnn_ops.h"

namespace fb::ops {

LSTMBlockCellOutputs LSTMBlockCell(const Scope& s, Output x, Output cs_prev, Output h_prev,
                                   Output w, Output wci, Output wcf, Output wco, Output b,
                                   const LSTMBlockCellAttrs& attrs) {
  Node* n = AddOp(s, "LSTMBlockCell", {x, cs_prev, h_prev, w, wci, wcf, wco, b},
                  {{"forget_bias", attrs.forget_bias},
                   {"cell_clip", attrs.cell_clip},
                   {"use_peephole", attrs.use_peephole}});
  if (!n) return {};
  return {Output(n, 0), Output(n, 1), Output(n, 2), Output(n, 3),
          Output(n, 4), Output(n, 5), Output(n, 6)};
}

}  // namespace fb::ops
