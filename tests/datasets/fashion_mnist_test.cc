#include "datasets/fashion_mnist.h"

#include <filesystem>

#include <catch2/catch.hpp>

#include "datasets/idx_reader.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb::datasets {
namespace {

// Writes a 3-example split of 2x2 images into `dir` in MNIST's file names.
void WriteTinySplit(const std::string& dir, Split split, std::vector<uint8_t> labels) {
  IdxArray images{{static_cast<int64_t>(labels.size()), 2, 2}, {}};
  for (int64_t i = 0; i < images.num_elements(); ++i) images.data.push_back(static_cast<uint8_t>(i * 20));
  REQUIRE(WriteIdxFile(dir + "/" + MnistImagesFile(split), images).ok());
  REQUIRE(WriteIdxFile(dir + "/" + MnistLabelsFile(split), {{static_cast<int64_t>(labels.size())}, labels}).ok());
}

TEST_CASE("MNIST-format loader scales pixels to [0,1] NHWC and keeps labels", "[datasets]") {
  test::TempDir dir;
  WriteTinySplit(dir.path(), Split::kTrain, {3, 0, 9});
  auto ds = LoadMnistFormat(dir.path(), Split::kTrain);
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  const Dataset& d = **ds;
  CHECK(d.images.shape() == TensorShape({3, 2, 2, 1}));
  CHECK(d.image_shape() == std::vector<int64_t>{2, 2, 1});
  CHECK(d.num_classes == 10);
  // Pixel i was written as 20 * i, so it reads back as 20 * i / 255.
  CHECK(d.images.data<float>()[5] == Approx(100.0 / 255.0));
  CHECK(std::vector<int32_t>(d.labels.data<int32_t>(), d.labels.data<int32_t>() + 3) ==
        std::vector<int32_t>{3, 0, 9});
  CHECK(d.name == "fashion-mnist train");
}

TEST_CASE("MNIST-format loader errors name the file", "[datasets]") {
  test::TempDir dir;
  SECTION("missing labels file") {
    IdxArray images{{1, 2, 2}, {1, 2, 3, 4}};
    REQUIRE(WriteIdxFile(dir.file(MnistImagesFile(Split::kTest)), images).ok());
    auto ds = LoadMnistFormat(dir.path(), Split::kTest);
    CHECK(ds.status().code() == Code::kNotFound);
    CHECK(ds.status().message() == "IDX file '" + dir.file("t10k-labels-idx1-ubyte.gz") +
                                       "' not found (nor '" + dir.file("t10k-labels-idx1-ubyte") +
                                       "', uncompressed)");
  }
  SECTION("label out of range") {
    WriteTinySplit(dir.path(), Split::kTrain, {1, 10, 2});
    auto ds = LoadMnistFormat(dir.path(), Split::kTrain);
    CHECK(ds.status().message() == "IDX file '" + dir.file("train-labels-idx1-ubyte.gz") +
                                       "': label 10 of example 1 out of range [0, 10)");
  }
  SECTION("images and labels disagree on the count") {
    WriteTinySplit(dir.path(), Split::kTrain, {1, 2, 3});
    REQUIRE(WriteIdxFile(dir.file(MnistLabelsFile(Split::kTrain)), {{2}, {1, 2}}).ok());
    auto ds = LoadMnistFormat(dir.path(), Split::kTrain);
    CHECK(ds.status().code() == Code::kInvalidArgument);
    CHECK_THAT(ds.status().message(), Catch::Contains("3 images but 2 labels"));
  }
  SECTION("images of the wrong rank") {
    REQUIRE(WriteIdxFile(dir.file(MnistImagesFile(Split::kTrain)), {{4}, {1, 2, 3, 4}}).ok());
    REQUIRE(WriteIdxFile(dir.file(MnistLabelsFile(Split::kTrain)), {{4}, {1, 2, 3, 4}}).ok());
    auto ds = LoadMnistFormat(dir.path(), Split::kTrain);
    CHECK(ds.status().message() == "IDX file '" + dir.file("train-images-idx3-ubyte.gz") +
                                       "': images must have 3 dimensions [N,rows,cols], got 1");
  }
}

// A --dataset directory of uncompressed IDX files (MNIST mirrors, torchvision's raw/) was
// "IDX file '.../train-images-idx3-ubyte.gz' not found" although the data was there.
TEST_CASE("MNIST-format loader reads uncompressed IDX files and names a file given as the folder",
          "[datasets][errors]") {
  test::TempDir dir;
  const std::vector<uint8_t> labels = {4, 5};
  IdxArray images{{2, 2, 2}, {0, 51, 102, 153, 204, 255, 0, 0}};
  const std::string images_gz = MnistImagesFile(Split::kTrain);
  const std::string labels_gz = MnistLabelsFile(Split::kTrain);
  REQUIRE(WriteIdxFile(dir.file(images_gz.substr(0, images_gz.size() - 3)), images).ok());
  REQUIRE(WriteIdxFile(dir.file(labels_gz.substr(0, labels_gz.size() - 3)), {{2}, labels}).ok());
  auto ds = LoadMnistFormat(dir.path(), Split::kTrain);
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  CHECK((*ds)->images.shape() == TensorShape({2, 2, 2, 1}));
  CHECK((*ds)->labels.data<int32_t>()[1] == 5);

  auto file = LoadMnistFormat(dir.file("train-labels-idx1-ubyte"), Split::kTrain);
  CHECK(file.status().code() == Code::kInvalidArgument);
  CHECK_THAT(file.status().message(),
             Catch::Contains("is a file, expected a directory of MNIST-format IDX files"));
}

TEST_CASE("The installed Fashion-MNIST test split has 10000 28x28 images", "[datasets]") {
  if (!std::filesystem::exists(std::string(kFashionMnistDir) + "/t10k-labels-idx1-ubyte.gz")) {
    WARN("Fashion-MNIST not installed in " << kFashionMnistDir << ": skipped");
    return;
  }
  auto ds = LoadMnistFormat(kFashionMnistDir, Split::kTest);
  INFO(ds.status().ToString());
  REQUIRE(ds.ok());
  CHECK((*ds)->images.shape() == TensorShape({10000, 28, 28, 1}));
  // Every class appears exactly 1000 times in the test split (Xiao et al. 2017, Table 1).
  std::vector<int> counts(10);
  for (int64_t i = 0; i < 10000; ++i) counts[(*ds)->labels.data<int32_t>()[i]]++;
  CHECK(counts == std::vector<int>(10, 1000));
}

TEST_CASE("MNIST-format train and test images of different sizes fail at load naming both files",
          "[datasets]") {
  test::TempDir dir;
  WriteTinySplit(dir.path(), Split::kTrain, {1, 2, 3});  // 2x2 images
  IdxArray big{{2, 3, 3}, std::vector<uint8_t>(18, 7)};
  REQUIRE(WriteIdxFile(dir.file(MnistImagesFile(Split::kTest)), big).ok());
  REQUIRE(WriteIdxFile(dir.file(MnistLabelsFile(Split::kTest)), {{2}, {4, 5}}).ok());
  auto splits = LoadMnistTrainTest(dir.path());
  REQUIRE_FALSE(splits.ok());
  CHECK(splits.status().code() == Code::kInvalidArgument);
  CHECK_THAT(splits.status().message(),
             Catch::Contains(dir.file("train-images-idx3-ubyte.gz")) &&
                 Catch::Contains(dir.file("t10k-images-idx3-ubyte.gz")) &&
                 Catch::Contains("2x2") && Catch::Contains("3x3"));

  WriteTinySplit(dir.path(), Split::kTest, {4, 5});  // now 2x2 as well
  auto ok = LoadMnistTrainTest(dir.path());
  INFO(ok.status().ToString());
  REQUIRE(ok.ok());
  CHECK(ok->train->size() == 3);
  CHECK(ok->test->size() == 2);
}

}  // namespace
}  // namespace fb::datasets
