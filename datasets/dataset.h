#pragma once
// In-memory labelled image datasets and the process-wide registry the input op reads from
// (whitepaper 4.5, "Input Operations": input nodes read training examples inside the graph
// instead of having the client feed them).
//
//   ASSIGN_OR_RETURN(auto train, LoadFashionMnist(FashionMnistOptions{}, Split::kTrain));
//   RETURN_IF_ERROR(DatasetRegistry::Global()->Register("fashion-mnist/train", train));
//   ... ops::DatasetBatch(scope, step, {"fashion-mnist/train", ...}) ...
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/framework/tensor.h"

namespace fb::datasets {

// N examples: images float [N, rows, cols, channels] (NHWC, values in [0, 1] for real data),
// labels int32 [N] in [0, num_classes).
struct Dataset {
  std::string name;  // for messages: "fashion-mnist train", "synthetic"
  Tensor images;
  Tensor labels;
  int64_t num_classes = 0;

  int64_t size() const { return labels.NumElements(); }
  // [rows, cols, channels].
  std::vector<int64_t> image_shape() const;
  // Checks shapes, dtypes and label range. InvalidArgument naming the dataset.
  Status Validate() const;
  // Examples [begin, end) as a new dataset (shares no buffers).
  std::shared_ptr<const Dataset> Slice(int64_t begin, int64_t end) const;
};

// Datasets by name, for the DatasetBatch op. Thread-safe.
class DatasetRegistry {
 public:
  static DatasetRegistry* Global();
  // Validates and registers `dataset` under `name`, replacing an earlier one of that name.
  Status Register(const std::string& name, std::shared_ptr<const Dataset> dataset);
  // NotFound naming `name` (and the registered names) when absent.
  StatusOr<std::shared_ptr<const Dataset>> Lookup(const std::string& name) const;
  void Unregister(const std::string& name);

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<const Dataset>> datasets_;
};

}  // namespace fb::datasets
