#pragma once
// Fashion-MNIST (Xiao, Rasul and Vollgraf 2017): 60,000 training and 10,000 test greyscale
// 28x28 images of 10 clothing classes, in MNIST's IDX format. Debian's dataset-fashion-mnist
// package installs the four gzip'd files in /usr/share/datasets/fashion-mnist/:
//   train-images-idx3-ubyte.gz  train-labels-idx1-ubyte.gz
//   t10k-images-idx3-ubyte.gz   t10k-labels-idx1-ubyte.gz
// The same loader reads MNIST itself (same names, same format).
#include <memory>
#include <string>

#include "datasets/dataset.h"

namespace fb::datasets {

inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

enum class Split { kTrain, kTest };
const char* SplitName(Split split);  // "train", "test"

// The IDX file names of a split inside the dataset directory.
std::string MnistImagesFile(Split split);  // "train-images-idx3-ubyte.gz", "t10k-..."
std::string MnistLabelsFile(Split split);

// Loads one split from `dir`: images become float [N, 28, 28, 1] scaled to [0, 1] (pixel / 255),
// labels int32 [N]. Each file is read gzip'd (MnistImagesFile) or, when that is missing,
// uncompressed (the same name without ".gz"). Errors name the file: NotFound for a missing file
// (both names), InvalidArgument for a `dir` that is a file; DataLoss for a corrupt
// IDX file (see ReadIdxFile); InvalidArgument for images that are not [N, rows, cols], labels
// that are not [N], counts that differ between the two files, or a label >= 10.
StatusOr<std::shared_ptr<const Dataset>> LoadMnistFormat(const std::string& dir, Split split,
                                                         const std::string& name = "fashion-mnist");

struct TrainTestSplits {
  std::shared_ptr<const Dataset> train, test;
};
// Loads both splits from `dir` (errors as LoadMnistFormat) and checks that their images have
// the same size: InvalidArgument naming both image files and their [rows, cols] otherwise, so
// that a mismatched test set fails before training rather than at evaluation.
StatusOr<TrainTestSplits> LoadMnistTrainTest(const std::string& dir,
                                             const std::string& name = "fashion-mnist");

}  // namespace fb::datasets
