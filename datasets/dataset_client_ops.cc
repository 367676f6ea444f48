#include "datasets/dataset_client_ops.h"

namespace fb::ops {

DatasetBatchOutputs DatasetBatch(const Scope& s, Output step, const DatasetBatchAttrs& a) {
  Node* n = AddOp(s, "DatasetBatch", {step},
                  {{"dataset", a.dataset},
                   {"batch_size", a.batch_size},
                   {"image_shape", a.image_shape},
                   {"seed", a.seed},
                   {"shuffle", a.shuffle},
                   {"num_shards", a.num_shards},
                   {"shard_index", a.shard_index}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1)};
}

}  // namespace fb::ops
