#pragma once
// Constant folding: a node whose data inputs all come from Const nodes and whose op is neither
// stateful nor reference-typed is evaluated once, at graph-construction time, with its CPU
// kernel, and replaced by Const nodes holding its outputs (TensorFlow's ConstantFolding, run
// before placement). Folding repeats through chains in topological order. Control inputs of a
// folded node, and those of its Const inputs (which keep a Const in its loop frame and
// its deadness), move to its replacement Consts; Const inputs left without consumers are removed.
// Skipped: nodes without inputs, control-flow nodes (Enter, Exit, Switch, Merge, NextIteration,
// LoopCond: an Enter of a Const is the Const inside its loop frame), internal nodes ("_Send",
// "_Fetch" ...), nodes without a CPU kernel, and outputs over
// kMaxFoldedBytes (a folded constant is stored in the graph). Kernel failures are not errors:
// the node is kept, so the Run reports the failure as it would have without the pass.
#include "engine/passes/graph_pass.h"

namespace fb {

inline constexpr int64_t kMaxFoldedBytes = 10 << 20;

// Folds `g`; the report lists "folded 'node' (Op)" per evaluated node.
PassReport FoldConstants(Graph* g);

}  // namespace fb
