#pragma once
// Conv2D + BiasAdd + Relu fusion (TensorFlow Grappler's remapper, its _FusedConv2D with
// fused_ops ["BiasAdd", "Relu"]), run after placement: a chain conv -> BiasAdd -> Relu becomes
// one _FusedConv2D node (engine/ops/nn_ops_conv.cc) that computes the convolution and then adds
// the bias and applies the Relu in one pass over the output (kernels/cpu/fused_conv_kernels.cc,
// kernels/cuda/conv_ops.cc), so the two intermediate tensors are never written or read again.
// The fused node takes the Relu's name, inputs (conv input, filter, BiasAdd's bias), consumers
// and device; the control inputs of the three nodes move to it. Fires only where it cannot
// change a value or a schedule other than by fusing:
//   - Conv2D's output and BiasAdd's output have no consumer but the next node of the chain (no
//     control consumer either; a fetched intermediate has its _Fetch consumer, so it is kept);
//   - the three nodes are assigned to the same device, which has a _FusedConv2D kernel for
//     their dtype, and BiasAdd is NHWC.
// Opt-in (SessionOptions::passes), not one of DefaultGraphPasses: `flowbench profile` records the
// simulator's per-op costs through the default passes, and the simulator (which runs only the
// before-placement defaults) would find no Conv2D, BiasAdd or Relu timings of fused layers.
// A training step keeps its gradients: ReluGrad reads the Relu's output (the fused node's), the
// convolution's gradients read its inputs, and BiasAddGrad reads ReluGrad's output.
#include "engine/passes/graph_pass.h"

namespace fb {

// Rewrites `g` (with assigned devices); the report lists "fused 'conv', 'bias', 'relu'" per
// fused chain.
PassReport FuseConvBiasRelu(Graph* g);

}  // namespace fb
