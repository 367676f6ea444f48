#pragma once
// A synthetic layered graph for placement experiments and the placer benchmark: `layers` layers
// of `width` nodes over float32 [batch, hidden] tensors, fed by one Placeholder "x". Node j of
// layer l (named "l<l>/n<j>") reads one or two nodes of layer l-1 chosen with a seeded
// std::mt19937 and is, in turn, a MatMul with the layer's weight Variable "l<l>/w"
// [hidden, hidden] (followed by nothing else), an Add of two inputs, or a Tanh, so the graph
// mixes compute-bound and memory-bound nodes, and a weight feeds many consumers.
// Nodes: 1 + layers * (width + 1).
#include <cstdint>
#include <memory>

#include "engine/graph/graph.h"

namespace fb {

struct SyntheticGraphOptions {
  int layers = 10;
  int width = 10;
  int64_t batch = 32;
  int64_t hidden = 64;
  uint64_t seed = 1;
};

// InvalidArgument for non-positive sizes.
StatusOr<std::unique_ptr<Graph>> BuildLayeredGraph(const SyntheticGraphOptions& options);

}  // namespace fb
