#include "experiments/models/lstm_cell.h"

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/rnn_ops.h"
#include "engine/client/state_ops.h"

namespace fb::experiments {

Output FusedCellZeros(const Scope& s, int64_t cells) {
  return ops::Fill(s.NewSubScope("peephole_zeros"), ops::IntConst(s, {cells}), ops::Const(s, 0.0f));
}

namespace {

LstmState CompositeCell(const Scope& s, const LstmCellWeights& p, Output x, const LstmState& prev) {
  Output z = ops::Add(s, ops::MatMul(s, ops::Concat(s, {x, prev.r}, 1), p.w), p.b);
  std::vector<Output> g = ops::Split(s, z, 1, 4);  // i, g (cell input), f, o
  if (g.size() != 4) return {};                    // the error is in the Scope
  Output forget = ops::Sigmoid(s, ops::Add(s, g[2], ops::Const(s, p.forget_bias)));
  LstmState next;
  next.c = ops::Add(s, ops::Mul(s, forget, prev.c),
                    ops::Mul(s, ops::Sigmoid(s, g[0]), ops::Tanh(s, g[1])));
  next.r = ops::Mul(s, ops::Sigmoid(s, g[3]), ops::Tanh(s, next.c));
  return next;
}

LstmState FusedCell(const Scope& s, const LstmCellWeights& p, Output x, const LstmState& prev) {
  ops::LSTMBlockCellAttrs attrs;
  attrs.forget_bias = p.forget_bias;
  const Output& z = p.peephole_zeros;
  ops::LSTMBlockCellOutputs cell =
      ops::LSTMBlockCell(s, x, prev.c, prev.r, p.w, z, z, z, p.b, attrs);
  return {cell.cs, cell.h};
}

}  // namespace

LstmState LstmCell(const Scope& s, const LstmCellWeights& p, Output x, const LstmState& prev) {
  LstmState next =
      p.peephole_zeros.valid() ? FusedCell(s, p, x, prev) : CompositeCell(s, p, x, prev);
  if (p.w_proj.valid() && next.r.valid()) next.r = ops::MatMul(s, next.r, p.w_proj);
  return next;
}

}  // namespace fb::experiments
