#pragma once
// Common subexpression elimination (whitepaper 5.1: "we have implemented a common subexpression
// pass similar to the algorithm described by Click [12] that runs over the computation graph and
// canonicalizes multiple copies of operations with identical inputs and operation types to just
// a single one of these nodes, and redirects edges appropriately"). Global value numbering in
// topological order (Click, PLDI 1995): two nodes are congruent when they have the same op, the
// same attrs, the same requested and assigned device, the same data inputs (after earlier
// merges) and the same set of control inputs. Never merged: stateful ops (Variables, random ops,
// queues, Send/Recv, feeds and fetches), Placeholders, and nodes with reference inputs or outputs. Operand
// order is significant (commutative ops are not canonicalised).
#include "engine/passes/graph_pass.h"

namespace fb {

// Runs CSE on `g`; the report lists "merged 'dup' into 'kept'" per removed node.
PassReport EliminateCommonSubexpressions(Graph* g);

}  // namespace fb
