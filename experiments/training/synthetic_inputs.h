#pragma once
// Synthetic inputs held in Variables (tf_cnn_benchmarks' synthetic data: a local variable on the
// model's device), for `flowbench benchmark` without a dataset: the batch is assigned once, and a
// timed step then feeds nothing and moves no input across devices (on a GPU, 79 MB per AlexNet
// step at batch 128 would otherwise cross the host link every step, which PyTorch's benchmarks
// do not pay either).
#include <string>
#include <vector>

#include "engine/graph/node_def.h"
#include "engine/runtime/session.h"

namespace fb::experiments {

// What to run once, after the model's init, to fill the input Variables.
struct SyntheticInit {
  std::vector<Session::NamedTensor> feeds;  // "<input>/synthetic_value" -> the batch
  std::vector<std::string> targets;         // "<input>/synthetic_assign"
};

// Rewrites every fed Placeholder of `graph` named in `feeds` ("name" or "name:0") into a Variable
// of the fed tensor's dtype and shape, plus a Placeholder "<name>/synthetic_value" and an Assign
// "<name>/synthetic_assign" that sets it; moves the feeds into the returned SyntheticInit (the
// step's feeds become empty). InvalidArgument naming the feed when it is not a Placeholder of the
// graph or its dtype differs from the fed tensor's.
StatusOr<SyntheticInit> MoveFeedsIntoVariables(GraphDef* graph,
                                               std::vector<Session::NamedTensor>* feeds);

}  // namespace fb::experiments
