#pragma once
// Synthetic labelled images for tests and benchmarks: any image shape and number of classes,
// reproducible from a seed. Each class has a random prototype image; an example is
// 0.5 * prototype(label) + 0.5 * uniform noise, so the data are learnable (a model's accuracy
// rises above chance) while needing no files.
#include <cstdint>
#include <memory>
#include <vector>

#include "datasets/dataset.h"

namespace fb::datasets {

struct SyntheticOptions {
  int64_t num_examples = 1024;
  std::vector<int64_t> image_shape = {28, 28, 1};  // [rows, cols, channels]
  int64_t num_classes = 10;
  uint64_t seed = 1;  // the class prototypes and the examples
  // Which sample of examples to draw from the same classes: e.g. 0 for a training split, 1 for
  // its test split.
  uint64_t split = 0;
};

// Images float [N, rows, cols, channels] in [0, 1), labels int32 [N] uniform over the classes.
// InvalidArgument for a non-positive count, class count or dimension, or a shape that is not
// rank 3.
StatusOr<std::shared_ptr<const Dataset>> MakeSyntheticDataset(const SyntheticOptions& options);

}  // namespace fb::datasets
