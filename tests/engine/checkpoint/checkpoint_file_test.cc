#include "engine/checkpoint/checkpoint_file.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <zlib.h>

#include <catch2/catch.hpp>

#include "engine/trace/hdf5_util.h"
#include "engine/trace/trace_writer.h"
#include "tests/engine/trace/temp_dir.h"
#include "tests/test_util.h"

namespace fb {
namespace {

namespace fs = std::filesystem;
using test::Values;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A checkpoint with a float matrix of 1000 elements (easy to find in the file), an int64 step.
std::string WriteSimple(const test::TempDir& dir, float fill = 1234.5f) {
  std::string path = dir.file("ckpt.h5");
  Tensor w = Tensor::FromVector<float>(std::vector<float>(1000, fill), {10, 100});
  Status s = WriteCheckpoint(path, {"layer/w", "global_step"}, {w, Tensor::Scalar<int64_t>(7)});
  INFO(s.ToString());
  REQUIRE(s.ok());
  return path;
}

template <typename T>
void CheckRoundTrip(const std::string& path, const std::string& name, const Tensor& want) {
  INFO(name);
  auto got = ReadCheckpointTensor(path, name, want.dtype(), want.shape());
  INFO(got.status().ToString());
  REQUIRE(got.ok());
  CHECK(got->shape() == want.shape());
  CHECK(Values<T>(*got) == Values<T>(want));
}

TEST_CASE("Checkpoint round trip of every supported dtype and shape", "[checkpoint]") {
  test::TempDir dir;
  std::string path = dir.file("all.h5");
  std::vector<std::string> names = {"f",   "d",   "i8",  "i16",   "i32",  "i64",
                                    "u8",  "u16", "u32", "u64",   "b",    "h",
                                    "bf",  "c",   "scalar", "empty", "deep/nested/v"};
  std::vector<Tensor> tensors = {
      Tensor::FromVector<float>({1.5f, -2, 3, 4, 5, 6}, {2, 3}),
      Tensor::FromVector<double>({1e-300, 2.5}, {2}),
      Tensor::FromVector<int8_t>({-128, 127}, {2}),
      Tensor::FromVector<int16_t>({-300, 300}, {2}),
      Tensor::FromVector<int32_t>({-1, 1 << 30}, {1, 2}),
      Tensor::FromVector<int64_t>({int64_t{1} << 40}, {1}),
      Tensor::FromVector<uint8_t>({255}, {1}),
      Tensor::FromVector<uint16_t>({65535}, {1}),
      Tensor::FromVector<uint32_t>({4000000000u}, {1}),
      Tensor::FromVector<uint64_t>({uint64_t{1} << 63}, {1}),
      Tensor::FromVector<bool>({true, false, true}, {3}),
      Tensor::FromVector<half>({half(1.5f), half(-2.f)}, {2}),
      Tensor::FromVector<bfloat16>({bfloat16(3.f)}, {1}),
      Tensor::FromVector<complex64>({{1, 2}, {-3, 4}}, {2}),
      Tensor::Scalar<float>(42.f),
      Tensor(DataType::kFloat, TensorShape{0, 4}),
      Tensor::FromVector<float>({9, 8}, {2, 1, 1})};
  REQUIRE(WriteCheckpoint(path, names, tensors).ok());
  CHECK_FALSE(fs::exists(TemporaryCheckpointPath(path)));
  CheckRoundTrip<float>(path, "f", tensors[0]);
  CheckRoundTrip<double>(path, "d", tensors[1]);
  CheckRoundTrip<int8_t>(path, "i8", tensors[2]);
  CheckRoundTrip<int16_t>(path, "i16", tensors[3]);
  CheckRoundTrip<int32_t>(path, "i32", tensors[4]);
  CheckRoundTrip<int64_t>(path, "i64", tensors[5]);
  CheckRoundTrip<uint8_t>(path, "u8", tensors[6]);
  CheckRoundTrip<uint16_t>(path, "u16", tensors[7]);
  CheckRoundTrip<uint32_t>(path, "u32", tensors[8]);
  CheckRoundTrip<uint64_t>(path, "u64", tensors[9]);
  CheckRoundTrip<bool>(path, "b", tensors[10]);
  CheckRoundTrip<half>(path, "h", tensors[11]);
  CheckRoundTrip<bfloat16>(path, "bf", tensors[12]);
  CheckRoundTrip<complex64>(path, "c", tensors[13]);
  CheckRoundTrip<float>(path, "scalar", tensors[14]);
  CheckRoundTrip<float>(path, "empty", tensors[15]);
  CheckRoundTrip<float>(path, "deep/nested/v", tensors[16]);
  // -1 dimensions and an unknown rank accept any stored size.
  CHECK(ReadCheckpointTensor(path, "f", DataType::kFloat, TensorShape{-1, 3}).ok());
  CHECK(ReadCheckpointTensor(path, "f", DataType::kFloat).ok());

  auto entries = ListCheckpoint(path);
  REQUIRE(entries.ok());
  REQUIRE(entries->size() == names.size());
  CHECK((*entries)[0].name == "b");
  CHECK((*entries)[2].name == "c");
  CHECK((*entries)[3].name == "d");
  CHECK((*entries)[4].name == "deep/nested/v");
  CHECK((*entries)[4].shape == TensorShape({2, 1, 1}));
  CHECK((*entries)[4].dtype == DataType::kFloat);
}

TEST_CASE("A checkpoint stores the global step as a root attribute", "[checkpoint]") {
  test::TempDir dir;
  std::string path = WriteSimple(dir);
  h5::Hdf5Guard guard;
  h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  REQUIRE(f.valid());
  auto step = h5::ReadIntAttr(f.get(), "global_step", path);
  REQUIRE(step.ok());
  CHECK(*step == 7);
  CHECK(*h5::ReadIntAttr(f.get(), "format_version", path) == kCheckpointFormatVersion);
}

TEST_CASE("A failed save leaves the previous checkpoint untouched", "[checkpoint][errors]") {
  test::TempDir dir;
  std::string path = WriteSimple(dir, 1.0f);
  const std::string before = ReadBytes(path);
  const std::string tmp = TemporaryCheckpointPath(path);

  SECTION("failure while writing a variable") {
    Tensor good = Tensor::FromVector<float>(std::vector<float>(1000, 2.0f), {10, 100});
    Tensor bad(DataType::kString, TensorShape{2});
    Status s = WriteCheckpoint(path, {"layer/w", "vocab"}, {good, bad});
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains(path + ": variable 'vocab': dtype string cannot be "
                                                   "stored in a checkpoint"));
  }
  SECTION("failure to create the temporary file") {
    fs::create_directory(tmp);  // the temporary name is taken by a directory
    Status s = WriteCheckpoint(path, {"layer/w"}, {Tensor::Scalar<float>(2.f)});
    CHECK(s.code() == Code::kInternal);
    CHECK_THAT(s.message(), Catch::Contains(path + ": cannot create temporary checkpoint file"));
    fs::remove(tmp);
  }
  SECTION("failure to rename over the final name") {
    std::string dir_path = dir.file("taken.h5");
    fs::create_directory(dir_path);
    fs::create_directory(dir_path + "/x");  // a non-empty directory cannot be renamed over
    Status s = WriteCheckpoint(dir_path, {"w"}, {Tensor::Scalar<float>(2.f)});
    CHECK(s.code() == Code::kInternal);
    CHECK_THAT(s.message(), Catch::Contains(dir_path + ": cannot rename"));
    CHECK_FALSE(fs::exists(TemporaryCheckpointPath(dir_path)));
  }
  CHECK(ReadBytes(path) == before);
  CHECK_FALSE(fs::exists(tmp));
  auto w = ReadCheckpointTensor(path, "layer/w", DataType::kFloat);
  REQUIRE(w.ok());
  CHECK(w->data<float>()[999] == 1.0f);
}

TEST_CASE("Saving into a missing directory fails, naming the file", "[checkpoint][errors]") {
  test::TempDir dir;
  std::string path = dir.file("missing/ckpt.h5");
  Status s = WriteCheckpoint(path, {"w"}, {Tensor::Scalar<float>(1.f)});
  CHECK(s.code() == Code::kInternal);
  CHECK_THAT(s.message(), Catch::Contains(path + ": cannot create temporary checkpoint file"));
}

TEST_CASE("Bad tensor names are rejected before anything is written", "[checkpoint][errors]") {
  test::TempDir dir;
  std::string path = dir.file("c.h5");
  Tensor one = Tensor::Scalar<float>(1.f);
  Status s = WriteCheckpoint(path, {"w", "w"}, {one, one});
  CHECK_THAT(s.message(), Catch::Contains(path + ": tensor name 'w' repeated"));
  s = WriteCheckpoint(path, {"/w"}, {one});
  CHECK_THAT(s.message(), Catch::Contains("bad tensor name '/w'"));
  s = WriteCheckpoint(path, {""}, {one});
  CHECK_THAT(s.message(), Catch::Contains("bad tensor name ''"));
  s = WriteCheckpoint(path, {"a", "b"}, {one});
  CHECK_THAT(s.message(), Catch::Contains("2 tensor names for 1 tensors"));
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("Restore errors name the file and the variable", "[checkpoint][errors]") {
  test::TempDir dir;
  std::string path = WriteSimple(dir);

  auto r = ReadCheckpointTensor(dir.file("nope.h5"), "w", DataType::kFloat);
  CHECK(r.status().code() == Code::kNotFound);
  CHECK_THAT(r.status().message(), Catch::Contains(dir.file("nope.h5") + ": cannot open "
                                                   "checkpoint: No such file or directory"));

  r = ReadCheckpointTensor(path, "layer/b", DataType::kFloat);
  CHECK(r.status().code() == Code::kNotFound);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path + ": no variable 'layer/b' in checkpoint (it holds: "
                                    "global_step, layer/w)"));

  r = ReadCheckpointTensor(path, "layer/w", DataType::kInt32);
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path + ": variable 'layer/w': checkpoint holds float, expected "
                                    "int32"));

  r = ReadCheckpointTensor(path, "layer/w", DataType::kFloat, TensorShape{100, 10});
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path + ": variable 'layer/w': checkpoint holds shape [10,100], "
                                    "expected [100,10]"));
}

TEST_CASE("Restoring from a truncated checkpoint fails with DataLoss", "[checkpoint][errors]") {
  test::TempDir dir;
  std::string path = WriteSimple(dir);
  fs::resize_file(path, fs::file_size(path) / 2);
  auto r = ReadCheckpointTensor(path, "layer/w", DataType::kFloat);
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path + ": cannot open checkpoint (truncated or corrupt?)"));
}

TEST_CASE("Restoring corrupted data fails its checksum", "[checkpoint][errors]") {
  test::TempDir dir;
  std::string path = WriteSimple(dir);
  std::string bytes = ReadBytes(path);
  float value = 1234.5f;
  std::string pattern(reinterpret_cast<const char*>(&value), sizeof value);
  size_t at = bytes.find(pattern + pattern);
  REQUIRE(at != std::string::npos);
  bytes[at + 1] ^= 0x5a;  // flip bits inside the stored matrix
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  auto r = ReadCheckpointTensor(path, "layer/w", DataType::kFloat);
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path + ": variable 'layer/w': cannot read data (corrupt checkpoint)"));
  CHECK_THAT(r.status().message(), Catch::Contains("Fletcher32"));
}

TEST_CASE("Restore rejects files that are not flowbench checkpoints", "[checkpoint][errors]") {
  test::TempDir dir;
  std::ofstream(dir.file("junk.h5")) << "not hdf5 at all";
  auto r = ReadCheckpointTensor(dir.file("junk.h5"), "w", DataType::kFloat);
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(), Catch::Contains("junk.h5: not an HDF5 file"));

  // An HDF5 file of another kind: a trace.
  auto w = TraceWriter::Create(dir.file("trace.h5"), TraceMetadata{});
  REQUIRE(w.ok());
  REQUIRE((*w)->Close().ok());
  r = ReadCheckpointTensor(dir.file("trace.h5"), "w", DataType::kFloat);
  CHECK(r.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(r.status().message(),
             Catch::Contains("trace.h5: not a flowbench checkpoint (" + dir.file("trace.h5") +
                             ": missing attribute 'format_version')"));
}

// Rewrites data through HDF5 (so HDF5's own metadata checksums stay valid): what a bit flip in
// a scalar's data block, which HDF5 does not checksum, amounts to.
void OverwriteScalar(const std::string& path, const std::string& name, hid_t type,
                     const void* value) {
  h5::Hdf5Guard guard;
  h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  REQUIRE(f.valid());
  h5::Handle ds(H5Dopen2(f.get(), name.c_str(), H5P_DEFAULT), H5Dclose);
  REQUIRE(ds.valid());
  REQUIRE(H5Dwrite(ds.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, value) >= 0);
}

// step 40, a scalar optimizer slot and a matrix.
std::string WriteWithScalars(const test::TempDir& dir) {
  std::string path = dir.file("ckpt-40.h5");
  Tensor w = Tensor::FromVector<float>(std::vector<float>(6, 0.5f), {2, 3});
  Status s = WriteCheckpoint(path, {"layer/w", "opt/beta1_power", "global_step"},
                             {w, Tensor::Scalar<float>(0.9f), Tensor::Scalar<int64_t>(40)});
  REQUIRE(s.ok());
  return path;
}

TEST_CASE("A changed scalar variable fails its crc32 checksum", "[checkpoint][errors]") {
  test::TempDir dir;
  const std::string path = WriteWithScalars(dir);
  REQUIRE(VerifyCheckpoint(path).ok());
  SECTION("the step counter") {
    const int64_t flipped = 40 ^ 1;  // one bit: 41
    OverwriteScalar(path, "global_step", H5T_NATIVE_INT64, &flipped);
    auto r = ReadCheckpointTensor(path, "global_step", DataType::kInt64, TensorShape{});
    CHECK(r.status().code() == Code::kDataLoss);
    CHECK_THAT(r.status().message(),
               Catch::Contains(path + ": variable 'global_step': corrupt checkpoint: crc32 "
                                      "checksum mismatch"));
  }
  SECTION("an optimizer scalar") {
    float value = 0.9f;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    bits ^= 1u << 7;
    std::memcpy(&value, &bits, sizeof bits);
    OverwriteScalar(path, "opt/beta1_power", H5T_NATIVE_FLOAT, &value);
    auto r = ReadCheckpointTensor(path, "opt/beta1_power", DataType::kFloat, TensorShape{});
    CHECK(r.status().code() == Code::kDataLoss);
    CHECK_THAT(r.status().message(),
               Catch::Contains(path + ": variable 'opt/beta1_power': corrupt checkpoint: crc32"));
  }
  Status v = VerifyCheckpoint(path);
  CHECK(v.code() == Code::kDataLoss);
  CHECK_THAT(v.message(), Catch::Contains(path + ": variable '"));
  CHECK_THAT(v.message(), Catch::Contains("crc32 checksum mismatch"));
  // The other variables still read.
  CHECK(ReadCheckpointTensor(path, "layer/w", DataType::kFloat).ok());
}

TEST_CASE("The global_step root attribute must match the global_step variable",
          "[checkpoint][errors]") {
  test::TempDir dir;
  const std::string path = WriteWithScalars(dir);
  {
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    REQUIRE(f.valid());
    h5::Handle a(H5Aopen(f.get(), "global_step", H5P_DEFAULT), H5Aclose);
    REQUIRE(a.valid());
    const int64_t flipped = 41;
    REQUIRE(H5Awrite(a.get(), H5T_NATIVE_INT64, &flipped) >= 0);
  }
  auto r = ReadCheckpointTensor(path, "global_step", DataType::kInt64, TensorShape{});
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path + ": corrupt checkpoint: root attribute global_step is 41, "
                                    "the global_step dataset holds"));
  CHECK(VerifyCheckpoint(path).code() == Code::kDataLoss);
}

// Turns a version-2 file into what version 1 wrote: no crc32 attributes, format_version 1.
// Format 1 wrote the dtype attribute as a variable-length string (read in a child process now).
void RewriteDtypeAsVariableLength(hid_t file, const char* name, const std::string& path) {
  h5::Handle ds(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
  REQUIRE(ds.valid());
  auto dtype = h5::ReadStringAttr(ds.get(), "dtype", path);
  REQUIRE(dtype.ok());
  REQUIRE(h5::WriteAttr(ds.get(), "dtype", *dtype, path).ok());
}

void DowngradeToVersion1(const std::string& path) {
  h5::Hdf5Guard guard;
  h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  REQUIRE(f.valid());
  for (const char* name : {"layer/w", "opt/beta1_power", "global_step"}) {
    REQUIRE(H5Adelete_by_name(f.get(), name, "crc32", H5P_DEFAULT) >= 0);
    RewriteDtypeAsVariableLength(f.get(), name, path);
  }
  h5::Handle a(H5Aopen(f.get(), "format_version", H5P_DEFAULT), H5Aclose);
  const int64_t one = 1;
  REQUIRE(H5Awrite(a.get(), H5T_NATIVE_INT64, &one) >= 0);
}

TEST_CASE("Version-1 checkpoints without crc32 still restore", "[checkpoint]") {
  test::TempDir dir;
  const std::string path = WriteWithScalars(dir);
  DowngradeToVersion1(path);
  auto step = ReadCheckpointTensor(path, "global_step", DataType::kInt64, TensorShape{});
  INFO(step.status().ToString());
  REQUIRE(step.ok());
  CHECK(step->scalar<int64_t>() == 40);
  auto w = ReadCheckpointTensor(path, "layer/w", DataType::kFloat, TensorShape{2, 3});
  REQUIRE(w.ok());
  CHECK(Values<float>(*w) == std::vector<float>(6, 0.5f));
  CHECK(VerifyCheckpoint(path).ok());
}

TEST_CASE("A version-2 checkpoint whose dtype is a variable-length string is corrupt",
          "[checkpoint][errors]") {
  test::TempDir dir;
  const std::string path = WriteWithScalars(dir);
  {
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    RewriteDtypeAsVariableLength(f.get(), "layer/w", path);
  }
  auto r = ReadCheckpointTensor(path, "layer/w", DataType::kFloat);
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(), Catch::Contains(path));
  CHECK_THAT(r.status().message(), Catch::Contains("'dtype' must be a fixed-length string"));
}

TEST_CASE("A version-2 checkpoint without a crc32 is corrupt", "[checkpoint][errors]") {
  test::TempDir dir;
  const std::string path = WriteWithScalars(dir);
  {
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    REQUIRE(H5Adelete_by_name(f.get(), "opt/beta1_power", "crc32", H5P_DEFAULT) >= 0);
  }
  auto r = ReadCheckpointTensor(path, "opt/beta1_power", DataType::kFloat);
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path + ": variable 'opt/beta1_power': corrupt checkpoint:"));
  CHECK_THAT(r.status().message(), Catch::Contains("crc32"));
}

TEST_CASE("A checkpoint of a newer format_version is refused", "[checkpoint][errors]") {
  test::TempDir dir;
  const std::string path = WriteWithScalars(dir);
  {
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    h5::Handle a(H5Aopen(f.get(), "format_version", H5P_DEFAULT), H5Aclose);
    const int64_t three = 3;
    REQUIRE(H5Awrite(a.get(), H5T_NATIVE_INT64, &three) >= 0);
  }
  Status s = VerifyCheckpoint(path);
  CHECK(s.code() == Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Catch::Contains(path + ": checkpoint format_version is 3, this "
                                                 "flowbench reads versions 1 to 2"));
}

TEST_CASE("The crc32 covers the variable's name, dtype, shape and data", "[checkpoint]") {
  const float data[2] = {1, 2};
  const uint32_t base = CheckpointTensorCrc32("w", DataType::kFloat, {2}, data, sizeof data);
  CHECK(CheckpointTensorCrc32("v", DataType::kFloat, {2}, data, sizeof data) != base);
  CHECK(CheckpointTensorCrc32("w", DataType::kInt32, {2}, data, sizeof data) != base);
  CHECK(CheckpointTensorCrc32("w", DataType::kFloat, {1, 2}, data, sizeof data) != base);
  CHECK(CheckpointTensorCrc32("w", DataType::kFloat, {2}, data, sizeof(float)) != base);
  // zlib's crc32 of "w\0float\0" then the dimension 2 as 8 little-endian bytes, then the floats.
  const unsigned char bytes[] = {'w', 0, 'f', 'l', 'o', 'a', 't', 0, 2, 0, 0, 0, 0, 0, 0, 0,
                                 0,   0, 0x80, 0x3f, 0, 0, 0, 0x40};
  CHECK(base == crc32(0, bytes, sizeof bytes));
}

TEST_CASE("The temporary file of a save names the host and the pid", "[checkpoint]") {
  const std::string tmp = TemporaryCheckpointPath("/d/ckpt-4.h5");
  CHECK_THAT(tmp, Catch::StartsWith("/d/ckpt-4.h5.tmp-"));
  CHECK_THAT(tmp, Catch::EndsWith("-" + std::to_string(getpid())));
  CHECK_FALSE(IsTemporaryCheckpointInUse(tmp));
}

// Found by the checkpoint fuzz target: libhdf5 loops on this format-1 file's corrupt
// variable-length dtype attribute; the child process that reads it is ended at its deadline.
TEST_CASE("A format-1 checkpoint whose dtype attribute hangs libhdf5 is DataLoss within seconds",
          "[checkpoint][errors]") {
  const std::string path =
      std::string(FB_SOURCE_DIR) + "/tests/data/bad/checkpoint_v1_dtype_hang.h5";
  const auto start = std::chrono::steady_clock::now();
  auto entries = ListCheckpoint(path);
  auto tensor = ReadCheckpointTensor(path, "w", DataType::kFloat);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(entries.status().ToString() << " / " << tensor.status().ToString());
  CHECK_FALSE(entries.ok());
  CHECK(entries.status().code() == Code::kDataLoss);
  CHECK_THAT(entries.status().message(), Catch::Contains(path));
  CHECK_FALSE(tensor.ok());
  CHECK(seconds < 20);
}

}  // namespace
}  // namespace fb
