#pragma once
// A synthetic training graph of any size, for simulator benchmarks and scaling studies: an MLP
// of `layers` layers of width `width` on a batch of `batch`, where every layer's forward pass is
// a MatMul followed by `elementwise` alternating Relu/Tanh nodes and the backward pass mirrors
// them (ReluGrad / Mul), then the weight gradient MatMul, the input gradient MatMul and an
// ApplyGradientDescent on the layer's Variable. Nodes: layers * (2 * elementwise + 5) + 3
// (x, lr, the loss seed). Many small ops and one variable per layer, like real models.
#include "engine/graph/node_def.h"

namespace fb::sim {

struct SyntheticGraphSpec {
  int layers = 100;
  int elementwise = 122;  // 100 layers x 249 + 3 = 24,903 nodes
  int width = 256;
  int batch = 32;
};

GraphDef SyntheticTrainingGraph(const SyntheticGraphSpec& spec);

}  // namespace fb::sim
