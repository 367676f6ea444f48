#pragma once
// Automatic differentiation (whitepaper 4.1, Figure 6 left): extends the graph with nodes that
// compute d(sum of ys * grad_ys)/d(xs), by walking backwards from ys and calling each op's
// registered gradient function. Gradients reaching one tensor from several consumers are summed
// with AddN. An x that no y depends on gets zeros (ZerosLike(x)).
//
// Errors: InvalidArgument if ys/xs/grad_ys are inconsistent; NotFound naming the op and node when
// a node on the path has no registered gradient.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/graph/control_flow_info.h"
#include "engine/graph/node_builder.h"

namespace fb {

// `grad_ys` may be empty (then each y gets OnesLike(y)) or have one entry per y.
// New nodes are named "<name_scope>/...". On success (*grad_xs)[i] is the gradient for xs[i].
// `gate_gradients` (TensorFlow's Optimizer GATE_OP, what optimizers use): the gradients an op
// produces for its several inputs become available together (Identity nodes "<op>/tuple", each
// with control edges from the others' producers), so an update that consumes one cannot run
// before another that still reads the same variable (MatMul(h, w): dh reads w, dw updates it).
Status AddSymbolicGradients(Graph* g, const std::vector<NodeOut>& ys,
                            const std::vector<NodeOut>& xs, const std::vector<NodeOut>& grad_ys,
                            std::vector<NodeOut>* grad_xs,
                            const std::string& name_scope = "gradients",
                            bool gate_gradients = false);

// While loops (whitepaper 4.4) are differentiated as a whole: when the backward walk reaches a
// loop frame, the registered builder gets the summed gradient of each of the frame's Exit nodes
// (invalid: none) and returns the gradient for the input of each of its Enter nodes (loop
// variables' initial values and loop invariants). engine/client/while_gradients.cc registers it.
struct WhileGradArgs {
  Graph* graph;
  const ControlFlowInfo* info;  // built before the walk; nodes added since are unknown to it
  std::string frame;
  std::map<Node*, NodeOut> exit_grads;
  std::string name_scope;
};
using WhileGradFn =
    std::function<Status(const WhileGradArgs& args, std::map<Node*, NodeOut>* enter_grads)>;
void RegisterWhileGradient(WhileGradFn fn);

}  // namespace fb
