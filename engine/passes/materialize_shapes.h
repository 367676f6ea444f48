#pragma once
// Shape materialization (TensorFlow Grappler's ConstantFolding::MaterializeShapes, run before
// placement): a Shape, Size or Rank node whose input has a statically known shape (whole-graph
// shape refinement, engine/placement/graph_shapes.h; Rank needs only the rank) becomes a Const
// holding that value, under the same name. In a graph with control flow (4.4) the Const keeps a
// control edge from the node that produced the queried tensor, as in TensorFlow: it stays in
// that node's frame, inherits its deadness and runs no earlier than the query did. In a graph
// without (no Switch, Merge, Enter, Exit, NextIteration, LoopCond, ControlTrigger), where no
// tensor is dead and every node is in the root frame, it is a root node, and queries of equal
// value, dtype and device without control inputs share one Const (the first one's). The
// query's own control inputs move to its Const. Constant folding (constant_folding.h) then
// evaluates what the new Consts feed (ConcatOffset, BroadcastGradientArgs, ...).
// Not materialized: queries inside a while-loop frame (loop-carried shapes may change between
// iterations), queries of a reference (Variable) output, and every query when the graph holds an
// Assign with validate_shape=false (a Variable's shape may then change at run time).
#include "engine/passes/graph_pass.h"

namespace fb {

// Rewrites `g`; the report lists "materialized 'node' (Op) = value" per replaced node, with
// " as 'other'" when it shares the Const of an earlier one. A graph
// whose shapes or frames cannot be analysed (a cycle, conflicting frames) is left unchanged.
PassReport MaterializeShapes(Graph* g);

}  // namespace fb
