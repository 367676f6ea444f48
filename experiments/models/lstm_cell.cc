#include "experiments/models/lstm_cell.h"

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"

namespace fb::experiments {

LstmState LstmCell(const Scope& s, const LstmCellWeights& p, Output x, const LstmState& prev) {
  Output z = ops::Add(s, ops::MatMul(s, ops::Concat(s, {x, prev.r}, 1), p.w), p.b);
  std::vector<Output> g = ops::Split(s, z, 1, 4);  // i, f, o, g
  if (g.size() != 4) return {};                    // the error is in the Scope
  Output forget = ops::Sigmoid(s, ops::Add(s, g[1], ops::Const(s, p.forget_bias)));
  LstmState next;
  next.c = ops::Add(s, ops::Mul(s, forget, prev.c),
                    ops::Mul(s, ops::Sigmoid(s, g[0]), ops::Tanh(s, g[3])));
  next.r = ops::Mul(s, ops::Sigmoid(s, g[2]), ops::Tanh(s, next.c));
  if (p.w_proj.valid()) next.r = ops::MatMul(s, next.r, p.w_proj);
  return next;
}

}  // namespace fb::experiments
