// The input op of whitepaper 4.5 ("Input Operations"): DatasetBatch reads a batch of training
// examples from a registered in-memory dataset (datasets/dataset.h) inside the graph, so the
// client feeds nothing per step. Its kernel is datasets/dataset_batch_kernel.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb::datasets {
namespace {

// images [batch_size, image_shape...], labels [batch_size]; step must be a scalar.
Status DatasetBatchShape(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(0, 0));
  int64_t batch_size = 0;
  std::vector<int64_t> image_shape;
  RETURN_IF_ERROR(c->GetAttr("batch_size", &batch_size));
  RETURN_IF_ERROR(c->GetAttr("image_shape", &image_shape));
  if (batch_size < 1) return c->Error("batch_size must be >= 1, got ", batch_size);
  if (image_shape.size() != 3) {
    return c->Error("image_shape must be [rows, cols, channels], got ", image_shape.size(),
                    " dimensions");
  }
  int64_t shards = 1, shard = 0;
  RETURN_IF_ERROR(c->GetAttr("num_shards", &shards));
  RETURN_IF_ERROR(c->GetAttr("shard_index", &shard));
  if (shards < 1 || shard < 0 || shard >= shards) {
    return c->Error("shard_index ", shard, " out of range for num_shards ", shards);
  }
  TensorShape images({batch_size});
  for (int64_t d : image_shape) images.AddDim(d);
  c->set_output(0, images);
  c->set_output(1, TensorShape({batch_size}));
  return Status::OK();
}

}  // namespace

static register_op::Registrar kDatasetBatchOp =
    OpDefBuilder("DatasetBatch")
        .Input("step: int64")
        .Output("images: float")
        .Output("labels: int32")
        .Attr("dataset: string")
        .Attr("batch_size: int")
        .Attr("image_shape: list(int)")
        .Attr("seed: int = 0")
        .Attr("shuffle: bool = true")
        .Attr("num_shards: int = 1")
        .Attr("shard_index: int = 0")
        .SetIsStateful()
        .SetShapeFn(DatasetBatchShape)
        .Doc("Batch `step` (a scalar, counted from 0 over the whole run) of the registered "
             "dataset `dataset`: images float [batch_size, rows, cols, channels] (NHWC) and "
             "labels int32 [batch_size]. Each step consumes batch_size * num_shards examples; "
             "shard `shard_index` gets its slice of them (synchronous data parallelism). An "
             "epoch is floor(N / (batch_size * num_shards)) steps (the remainder is dropped); "
             "with shuffle, epoch e visits the examples in the Fisher-Yates permutation keyed "
             "by (seed, e). The output is a function of (dataset, attrs, step) only, so a run "
             "resumed at step s reads exactly the batches an uninterrupted run would.");

}  // namespace fb::datasets
