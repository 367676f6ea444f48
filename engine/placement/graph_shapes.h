#pragma once
// Whole-graph shape refinement: runs every node's OpDef shape function in topological order,
// feeding it the shapes its producers were given and the values of inputs known at graph time
// (Const values, and Shape/Size/Rank of inputs whose shape is fully known), the way TensorFlow's
// ShapeRefiner does. The result feeds the cost model (bytes and FLOPs per node, whitepaper
// 3.2.1), the placers' memory estimates and the passes. Loops (4.4): a Merge input that comes
// back from NextIteration is not yet known when the Merge is refined, so it counts as unknown.
// Not thread-safe during construction; the result is read-only.
#include <map>
#include <string>
#include <vector>

#include "engine/framework/shape_inference.h"
#include "engine/graph/graph.h"

namespace fb {

class GraphShapes {
 public:
  // Shape of output `port` of `n` (std::nullopt: unknown rank; -1 dims: unknown).
  const PartialShape& output(const Node& n, int port) const { return outputs_[n.id()][port]; }
  const std::vector<PartialShape>& outputs(const Node& n) const { return outputs_[n.id()]; }
  // Shapes of the tensors feeding n's data inputs, in input order (unknown where unwired).
  std::vector<PartialShape> inputs(const Node& n) const;
  // The value of output 0 of `n` if it is known at graph time (a Const or a folded Shape op),
  // else nullptr.
  const Tensor* constant(const Node& n) const;

 private:
  friend StatusOr<GraphShapes> InferGraphShapes(const Graph&,
                                                const std::map<std::string, TensorShape>&, bool);
  std::vector<std::vector<PartialShape>> outputs_;  // by node id
  std::map<int, Tensor> constants_;                 // by node id
};

// Refines the shapes of every node of `g`. `feed_shapes` overrides output 0 of the named nodes
// (a Placeholder with an unknown batch dimension, or a _Feed node), e.g. {"x", [64,784]}.
// Errors: with `strict`, the first shape-function failure (InvalidArgument naming op and
// node); without, a failing node's outputs are left unknown. InvalidArgument naming a node on a
// cycle either way.
StatusOr<GraphShapes> InferGraphShapes(const Graph& g,
                                       const std::map<std::string, TensorShape>& feed_shapes = {},
                                       bool strict = true);

// Bytes of a tensor of `dtype` and `shape`, with every unknown dimension taken as
// `unknown_dim` and an unknown rank as a scalar. Used for transfer and memory estimates.
int64_t EstimatedBytes(DataType dtype, const PartialShape& shape, int64_t unknown_dim = 1);
// Number of elements, with the same conventions.
int64_t EstimatedElements(const PartialShape& shape, int64_t unknown_dim = 1);

}  // namespace fb
