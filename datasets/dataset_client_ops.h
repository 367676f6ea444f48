#pragma once
// Client wrapper of the DatasetBatch input op (datasets/dataset_ops.cc, whitepaper 4.5).
#include <string>
#include <vector>

#include "engine/client/scope.h"

namespace fb::ops {

struct DatasetBatchAttrs {
  std::string dataset;                             // name in DatasetRegistry
  int64_t batch_size = 64;
  std::vector<int64_t> image_shape = {28, 28, 1};  // [rows, cols, channels], must match the dataset
  int64_t seed = 0;
  bool shuffle = true;
  int64_t num_shards = 1;
  int64_t shard_index = 0;
};

struct DatasetBatchOutputs {
  Output images;  // float [batch_size, rows, cols, channels]
  Output labels;  // int32 [batch_size]
};

// `step`: an int64 scalar (usually the value of the training step Variable).
DatasetBatchOutputs DatasetBatch(const Scope& s, Output step, const DatasetBatchAttrs& attrs);

}  // namespace fb::ops
