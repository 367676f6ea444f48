#pragma once
// Automatic differentiation (whitepaper 4.1, Figure 6 left): extends the graph with nodes that
// compute d(sum of ys * grad_ys)/d(xs), by walking backwards from ys and calling each op's
// registered gradient function. Gradients reaching one tensor from several consumers are summed
// with AddN. An x that no y depends on gets zeros (ZerosLike(x)).
//
// Errors: InvalidArgument if ys/xs/grad_ys are inconsistent; NotFound naming the op and node when
// a node on the path has no registered gradient.
#include <vector>

#include "engine/graph/node_builder.h"

namespace fb {

// `grad_ys` may be empty (then each y gets OnesLike(y)) or have one entry per y.
// New nodes are named "<name_scope>/...". On success (*grad_xs)[i] is the gradient for xs[i].
Status AddSymbolicGradients(Graph* g, const std::vector<NodeOut>& ys,
                            const std::vector<NodeOut>& xs, const std::vector<NodeOut>& grad_ys,
                            std::vector<NodeOut>* grad_xs,
                            const std::string& name_scope = "gradients");

}  // namespace fb
