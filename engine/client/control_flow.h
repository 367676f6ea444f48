#pragma once
// Conditionals and loops in the C++ API (whitepaper 4.4), after TensorFlow's cond and
// while_loop: the builders emit Switch/Merge and Enter/Merge/Switch/LoopCond/NextIteration/Exit
// so that the executor runs a loop's iterations as tagged (frame, iteration) tokens, up to
// `parallel_iterations` at once, and skips untaken branches through dead values.
//
//   auto out = ops::WhileLoop(root, {i0, x0},
//       [](const Scope& s, const std::vector<Output>& v) { return ops::Less(s, v[0], n); },
//       [](const Scope& s, const std::vector<Output>& v) {
//         return std::vector<Output>{ops::Add(s, v[0], one), ops::Mul(s, v[1], v[1])};
//       });
//
// Branch and body functions may use any tensor built outside them (weights, say): the builder
// routes it in (through Switch for a branch, a constant Enter for a loop) and ties ops without
// inputs (constants) to the branch or iteration. Builders nest. Errors (wrong number or dtypes
// of results, a non-bool predicate) stick to the Scope and name the builder's node prefix.
#include <functional>
#include <string>
#include <vector>

#include "engine/client/scope.h"

namespace fb::ops {

using BranchFn = std::function<std::vector<Output>(const Scope&)>;
// Both branches must return the same number of tensors with equal dtypes; returns
// Merge(else, then) of each (dead-free: exactly one branch runs). pred: bool scalar.
std::vector<Output> Cond(const Scope& s, Output pred, const BranchFn& then_fn,
                         const BranchFn& else_fn);

using LoopCondFn = std::function<Output(const Scope&, const std::vector<Output>& vars)>;
using LoopBodyFn = std::function<std::vector<Output>(const Scope&, const std::vector<Output>& vars)>;
// How a tensor built outside a loop body gets into the loop frame (default: a constant Enter).
using CaptureFn = std::function<Output(const Scope&, Output external)>;

struct WhileOptions {
  int parallel_iterations = 10;
  std::string frame_name;  // default: a unique name from the scope ("while", "while_1", ...)
  CaptureFn capture;       // default: constant Enter into the frame
};

// The loop's structure, for gradients (engine/client/while_gradients.cc) and tests.
struct WhileLoopNodes {
  std::string frame_name;
  std::vector<Node*> enters, merges, switches, exits, next_iterations;
  std::vector<Output> body_inputs;  // Identity(Switch:1) per loop variable
  Node* loop_cond = nullptr;
};

// Runs body while cond holds; returns the loop variables' final values (the Exit outputs).
// cond returns a bool scalar; body returns one tensor per loop variable, same dtypes.
std::vector<Output> WhileLoop(const Scope& s, const std::vector<Output>& loop_vars,
                              const LoopCondFn& cond, const LoopBodyFn& body,
                              const WhileOptions& options = {}, WhileLoopNodes* nodes = nullptr);

// A constant (loop-invariant) Enter of `x` into `frame_name`.
Output Enter(const Scope& s, Output x, const std::string& frame_name, bool is_constant,
             int parallel_iterations = 10);

// Nodes built by the graph's owner that builders must leave alone (not capture-rewire): the
// forward-loop instrumentation of gradients carries this attr.
inline constexpr const char* kNoCaptureAttr = "_no_capture";

}  // namespace fb::ops
