#pragma once
// Size and work of a built model (experiments/models/models.h), read from its graph without
// running it: what `flowbench benchmark` reports next to step times (images/s, achieved FLOP/s)
// and what tests pin against published counts.
//
// FLOPs convention: FLOPs = 2 x multiply-accumulates (MACs) of every Conv2D, MatMul and
// BatchMatMul node on the path to the logits; bias adds, activations, pooling, normalization,
// concatenation and the loss are not counted. This is the convention of the published counts
// the tests compare with (torchvision's "GFLOPS" column and timm's "GMACs" both count MACs, so
// ours are twice those numbers): e.g. AlexNet (One Weird Trick, 227x227) 714,188,480 MACs =
// 1,428,376,960 FLOPs per image (/work/shared/papers/osdi2016-benchmarks.md 1.5). Per node the
// counts are the cost model's (engine/placement/op_cost.h): MatMul [M,K]x[K,N] 2*M*N*K;
// Conv2D NHWC, filter HWIO, 2 * N*OH*OW*OC * KH*KW*IC; shapes come from whole-graph shape
// refinement (engine/placement/graph_shapes.h), the same inference the placers and the
// simulator use, so the count works for any registered model.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "experiments/models/models.h"

namespace fb::experiments {

// Number of trainable parameters (elements of model.variables; optimizer slots and the step
// counter are not trainable). Unknown dimensions count as 0.
int64_t ParameterCount(const Model& model);

// Forward FLOPs per example (convention above) of `model` at the image shape it was built
// with: the FLOPs of one evaluation of model.logits divided by the number of examples, the
// leading dimension of model.images. Placeholder dimensions left unknown (the batch) are taken
// as 1; a DatasetBatch input has its batch size. Errors: InvalidArgument naming the node when
// a shape function fails or a counted node's shapes are not fully known, or when the batch of
// model.images is unknown; NotFound when the graph lacks model.logits or model.images.
StatusOr<int64_t> ForwardFlopsPerExample(const Model& model);

// FLOPs (convention above) of one evaluation of the tensors `outputs` ("node:port") of the graph
// `def`: the counted nodes they depend on, with `feed_shapes` overriding the shapes of the named
// Placeholders (e.g. their batch). For graphs that are not registered models (the LSTM language
// models). A node inside a while loop (whitepaper 4.4) counts once, as the iteration count is
// not in the graph; its shapes must be known (shape refinement does not see loop-carried
// shapes, so a MatMul on the loop state is an error). Errors: those of ForwardFlopsPerExample
// and of Graph::FromGraphDef (naming the node).
StatusOr<int64_t> ForwardFlops(const GraphDef& def, const std::vector<std::string>& outputs,
                               const std::map<std::string, TensorShape>& feed_shapes);

}  // namespace fb::experiments
