// CPU kernel of DatasetBatch (datasets/dataset_ops.cc): gathers the batch's rows of the
// registered dataset. The dataset is looked up on first use; the current epoch's permutation is
// cached (one epoch at a time, guarded by a mutex, so concurrent steps are safe).
#include <cstring>
#include <mutex>

#include "datasets/dataset.h"
#include "datasets/shuffle.h"
#include "engine/framework/op_kernel.h"

namespace fb::datasets {
namespace {

class DatasetBatchOp : public OpKernel {
 public:
  explicit DatasetBatchOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("dataset", &dataset_name_));
    c->SetStatus(c->GetAttr("batch_size", &batch_size_));
    c->SetStatus(c->GetAttr("image_shape", &image_shape_));
    c->SetStatus(c->GetAttr("seed", &seed_));
    c->SetStatus(c->GetAttr("shuffle", &shuffle_));
    c->SetStatus(c->GetAttr("num_shards", &num_shards_));
    c->SetStatus(c->GetAttr("shard_index", &shard_index_));
    c->SetStatus(CheckAttrs());
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& step_t = ctx->input(0);
    OP_REQUIRES(ctx, step_t.dims() == 0,
                InvalidArgument("step must be a scalar, got shape ", step_t.shape().DebugString()));
    const int64_t step = step_t.scalar<int64_t>();
    OP_REQUIRES(ctx, step >= 0, InvalidArgument("step must be >= 0, got ", step));
    std::vector<int64_t> rows(batch_size_);
    std::shared_ptr<const Dataset> ds;
    OP_REQUIRES_OK(ctx, BatchRows(step, &ds, &rows));
    TensorShape shape({batch_size_});
    for (int64_t d : image_shape_) shape.AddDim(d);
    Tensor* images;
    Tensor* labels;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &images));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({batch_size_}), &labels));
    const int64_t pixels = shape.num_elements() / batch_size_;
    const float* src = ds->images.data<float>();
    const int32_t* src_labels = ds->labels.data<int32_t>();
    for (int64_t i = 0; i < batch_size_; ++i) {
      std::memcpy(images->data<float>() + i * pixels, src + rows[i] * pixels, pixels * sizeof(float));
      labels->data<int32_t>()[i] = src_labels[rows[i]];
    }
  }

 private:
  // The dataset rows of this shard's part of batch `step`.
  Status BatchRows(int64_t step, std::shared_ptr<const Dataset>* ds, std::vector<int64_t>* rows) {
    std::lock_guard<std::mutex> l(mu_);
    RETURN_IF_ERROR(LoadDataset());
    *ds = dataset_;
    const int64_t per_step = batch_size_ * num_shards_;
    const int64_t steps_per_epoch = dataset_->size() / per_step;
    const int64_t epoch = step / steps_per_epoch;
    if (shuffle_ && epoch != epoch_) {
      permutation_ = Permutation(dataset_->size(), static_cast<uint64_t>(seed_), epoch);
      epoch_ = epoch;
    }
    const int64_t first = (step % steps_per_epoch) * per_step + shard_index_ * batch_size_;
    for (int64_t i = 0; i < batch_size_; ++i) {
      (*rows)[i] = shuffle_ ? permutation_[first + i] : first + i;
    }
    return Status::OK();
  }

  Status CheckAttrs() const {
    if (batch_size_ < 1) return InvalidArgument("batch_size must be >= 1, got ", batch_size_);
    if (image_shape_.size() != 3) {
      return InvalidArgument("image_shape must be [rows, cols, channels], got ",
                             image_shape_.size(), " dimensions");
    }
    if (num_shards_ < 1 || shard_index_ < 0 || shard_index_ >= num_shards_) {
      return InvalidArgument("shard_index ", shard_index_, " out of range for num_shards ",
                             num_shards_);
    }
    return Status::OK();
  }

  // Requires mu_. Looks the dataset up once and checks it against the attrs.
  Status LoadDataset() {
    if (dataset_) return Status::OK();
    ASSIGN_OR_RETURN(auto ds, DatasetRegistry::Global()->Lookup(dataset_name_));
    if (ds->image_shape() != image_shape_) {
      return InvalidArgument("dataset '", dataset_name_, "' has images of shape ",
                             TensorShape(ds->image_shape()).DebugString(), ", attr image_shape is ",
                             TensorShape(image_shape_).DebugString());
    }
    if (ds->size() < batch_size_ * num_shards_) {
      return InvalidArgument("dataset '", dataset_name_, "' has ", ds->size(),
                             " examples, fewer than one step needs (batch_size ", batch_size_,
                             " x num_shards ", num_shards_, ")");
    }
    dataset_ = std::move(ds);
    return Status::OK();
  }

  std::string dataset_name_;
  int64_t batch_size_ = 0, seed_ = 0, num_shards_ = 1, shard_index_ = 0;
  std::vector<int64_t> image_shape_;
  bool shuffle_ = true;
  std::mutex mu_;
  std::shared_ptr<const Dataset> dataset_;
  int64_t epoch_ = -1;
  std::vector<int64_t> permutation_;
};

REGISTER_KERNEL(KernelDefBuilder("DatasetBatch").Device(DEVICE_CPU), DatasetBatchOp);

}  // namespace
}  // namespace fb::datasets
