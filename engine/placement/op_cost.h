#pragma once
// Analytic per-op work estimates for the cost model (whitepaper 3.2.1: "the cost model contains
// estimates of the sizes (in bytes) of the input and output tensors for each graph node, along
// with estimates of the computation time required for each node"). Work is counted from the
// shapes shape refinement gives: floating-point operations and bytes read plus written, as in a
// roofline model (Williams, Waterman, Patterson, CACM 2009). Formulas:
//   MatMul [M,K]x[K,N]: 2*M*N*K FLOPs;  BatchMatMul: batch * 2*M*N*K
//   Conv2D NHWC, filter HWIO: 2 * N*OH*OW*OC * KH*KW*IC; each backprop: the same count
//   MaxPool/AvgPool (and grads): output (or input) elements * window size
//   Softmax/LogSoftmax/cross entropy: 5 FLOPs per element; Exp/Log/Sqrt/Tanh/Sigmoid: 4
//   reductions: input elements; other element-wise ops: output elements
//   ApplyAdam: 10 per element, ApplyMomentum: 4, ApplyGradientDescent: 2
// Metadata ops (Const, Identity, Reshape, Shape, NoOp, Variable, Placeholder, _Send/_Recv, ...)
// move no data on their own: 0 FLOPs and 0 bytes (the device's launch overhead still counts).
// Unknown dimensions count as `unknown_dim`.
#include <cstdint>
#include <vector>

#include "engine/framework/shape_inference.h"
#include "engine/graph/graph.h"

namespace fb {

struct OpWork {
  double flops = 0;
  double bytes_accessed = 0;  // bytes read plus bytes written
};

// Estimates the work of one execution of `n`, given its input and output shapes.
OpWork EstimateOpWork(const Node& n, const std::vector<PartialShape>& inputs,
                      const std::vector<PartialShape>& outputs, int64_t unknown_dim = 1);

// True for ops that only alias or describe tensors (no kernel work beyond the launch).
bool IsMetadataOp(const std::string& op);

}  // namespace fb
