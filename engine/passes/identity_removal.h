#pragma once
// Identity removal (TensorFlow Grappler's DependencyOptimizer, its SafeToRemoveIdentity and
// BypassingNodeIsBeneficial rules, run before placement): an Identity whose removal provably
// changes no value, no frame and no device crossing is bypassed: its data consumers read its
// input directly, its control consumers wait on its input's node, and its own control inputs
// move to every consumer (so what waited for the Identity still waits for what it waited for).
// Kept (the pass must not fire):
//   - an Identity reading a reference (Variable) output: it is the read that snapshots the value
//     (TensorFlow's "<var>/read");
//   - an Identity reading a control-flow node (Switch, Merge, Enter, Exit, NextIteration,
//     LoopCond) or a _Recv, or feeding a control-flow node: conditional pivots, loop-carried
//     values and transfer points are structural (4.4);
//   - an Identity on another requested or assigned device than its input: it is where the
//     tensor crosses devices (3.2.2).
// Fetched Identities may be removed: the Session's _Fetch node then reads the same value from
// the Identity's input. Chains of Identities are removed one after the other.
#include "engine/passes/graph_pass.h"

namespace fb {

// Rewrites `g`; the report lists "removed 'node'" per bypassed Identity.
PassReport RemoveIdentities(Graph* g);

}  // namespace fb
