#pragma once
// A registered model (experiments/models/models.h) as a plain graph for tools that analyse graphs
// without running them: the placers (`flowbench place`, benchmarks/placer_bench.cc) and the
// simulator (`flowbench sim --model`): one training step, i.e. the nodes the train op and the
// loss depend on (initializers and metrics pruned). The model is built with Placeholder inputs,
// whose batch dimension (-1) is set to `batch` in feed_shapes so that the cost model can infer
// every shape.
#include <map>
#include <memory>
#include <string>

#include "engine/graph/graph.h"

namespace fb::experiments {

struct ModelGraph {
  std::unique_ptr<Graph> graph;
  // The whole graph the step was pruned from (initializers, metrics): what a Session places
  // before it prunes a Run's graph (engine/runtime/session.cc), so that order-dependent placers
  // give the step's nodes the devices a real run gives them.
  std::unique_ptr<Graph> client_graph;
  std::map<std::string, TensorShape> feed_shapes;  // Placeholder name -> shape, batch filled in
};

// The shapes of `g`'s Placeholders of known rank with every unknown dimension (-1) set to
// `batch`, by node name (what the cost model needs to infer the shapes of a graph file).
std::map<std::string, TensorShape> BatchedPlaceholderShapes(const Graph& g, int64_t batch);

// The model is built at its registered ModelDefaults (image shape, classes), e.g. alexnet on
// 227x227x3 images with 1000 classes, lenet on 28x28x1 with 10.
// Errors: those of BuildModel (NotFound naming an unknown model and listing the known ones;
// InvalidArgument for batch < 1) and of graph validation (naming the node).
StatusOr<ModelGraph> BuildModelGraph(const std::string& model, int64_t batch);

// The graph of one step of `flowbench benchmark --mode MODE` (experiments/training/benchmark.h):
// "train" (as above: the train op and the loss), "forward-backward" (the loss and every gradient,
// no update) or "forward" (the logits). Same node names as the benchmark's graph, so a GPU or CPU
// profile of that mode (sim/profile.h) covers every node. InvalidArgument quoting `mode` for
// another mode; otherwise the errors of BuildModelGraph above.
StatusOr<ModelGraph> BuildModelGraph(const std::string& model, int64_t batch,
                                     const std::string& mode);

}  // namespace fb::experiments
