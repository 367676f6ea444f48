#include "datasets/fashion_mnist.h"

#include <filesystem>

#include "datasets/idx_reader.h"

namespace fb::datasets {
namespace {

constexpr int64_t kMnistClasses = 10;

StatusOr<Tensor> ImagesFromIdx(const IdxArray& idx, const std::string& path) {
  if (idx.dims.size() != 3) {
    return InvalidArgument("IDX file '", path, "': images must have 3 dimensions [N,rows,cols], got ",
                           idx.dims.size());
  }
  Tensor images(DataType::kFloat, TensorShape({idx.dims[0], idx.dims[1], idx.dims[2], 1}));
  float* out = images.data<float>();
  for (size_t i = 0; i < idx.data.size(); ++i) out[i] = idx.data[i] * (1.0f / 255.0f);
  return images;
}

StatusOr<Tensor> LabelsFromIdx(const IdxArray& idx, const std::string& path) {
  if (idx.dims.size() != 1) {
    return InvalidArgument("IDX file '", path, "': labels must have 1 dimension [N], got ",
                           idx.dims.size());
  }
  Tensor labels(DataType::kInt32, TensorShape({idx.dims[0]}));
  int32_t* out = labels.data<int32_t>();
  for (size_t i = 0; i < idx.data.size(); ++i) {
    if (idx.data[i] >= kMnistClasses) {
      return InvalidArgument("IDX file '", path, "': label ", int{idx.data[i]}, " of example ", i,
                             " out of range [0, ", kMnistClasses, ")");
    }
    out[i] = idx.data[i];
  }
  return labels;
}

// `dir`/`gz_name`, or the same file uncompressed (the name without ".gz", as MNIST mirrors and
// torchvision's raw/ folder hold them); NotFound naming both when neither exists.
StatusOr<std::string> IdxPath(const std::string& dir, const std::string& gz_name) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return InvalidArgument("dataset '", dir, "' is a file, expected a directory of MNIST-format ",
                           "IDX files");
  const std::string gz = dir + "/" + gz_name;
  const std::string raw = gz.substr(0, gz.size() - 3);
  if (fs::exists(gz, ec) || !fs::exists(raw, ec)) {
    if (!fs::exists(gz, ec))
      return NotFound("IDX file '", gz, "' not found (nor '", raw, "', uncompressed)");
    return gz;
  }
  return raw;
}

}  // namespace

const char* SplitName(Split split) { return split == Split::kTrain ? "train" : "test"; }

std::string MnistImagesFile(Split split) {
  return split == Split::kTrain ? "train-images-idx3-ubyte.gz" : "t10k-images-idx3-ubyte.gz";
}

std::string MnistLabelsFile(Split split) {
  return split == Split::kTrain ? "train-labels-idx1-ubyte.gz" : "t10k-labels-idx1-ubyte.gz";
}

StatusOr<std::shared_ptr<const Dataset>> LoadMnistFormat(const std::string& dir, Split split,
                                                         const std::string& name) {
  ASSIGN_OR_RETURN(const std::string images_path, IdxPath(dir, MnistImagesFile(split)));
  ASSIGN_OR_RETURN(const std::string labels_path, IdxPath(dir, MnistLabelsFile(split)));
  ASSIGN_OR_RETURN(IdxArray images_idx, ReadIdxFile(images_path));
  ASSIGN_OR_RETURN(IdxArray labels_idx, ReadIdxFile(labels_path));
  auto ds = std::make_shared<Dataset>();
  ds->name = name + " " + SplitName(split);
  ds->num_classes = kMnistClasses;
  ASSIGN_OR_RETURN(ds->images, ImagesFromIdx(images_idx, images_path));
  ASSIGN_OR_RETURN(ds->labels, LabelsFromIdx(labels_idx, labels_path));
  if (ds->images.dim_size(0) != ds->labels.dim_size(0)) {
    return InvalidArgument("IDX files '", images_path, "' and '", labels_path, "' disagree: ",
                           ds->images.dim_size(0), " images but ", ds->labels.dim_size(0),
                           " labels");
  }
  return std::shared_ptr<const Dataset>(std::move(ds));
}

StatusOr<TrainTestSplits> LoadMnistTrainTest(const std::string& dir, const std::string& name) {
  TrainTestSplits splits;
  ASSIGN_OR_RETURN(splits.train, LoadMnistFormat(dir, Split::kTrain, name));
  ASSIGN_OR_RETURN(splits.test, LoadMnistFormat(dir, Split::kTest, name));
  const TensorShape& train = splits.train->images.shape();
  const TensorShape& test = splits.test->images.shape();
  if (train.dim_size(1) != test.dim_size(1) || train.dim_size(2) != test.dim_size(2)) {
    return InvalidArgument("IDX files '", dir, "/", MnistImagesFile(Split::kTrain), "' and '", dir,
                           "/", MnistImagesFile(Split::kTest), "' hold images of different sizes: ",
                           train.dim_size(1), "x", train.dim_size(2), " (training) vs ",
                           test.dim_size(1), "x", test.dim_size(2),
                           " (test); both splits must have the same rows x cols");
  }
  return splits;
}

}  // namespace fb::datasets
