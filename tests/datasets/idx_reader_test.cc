#include "datasets/idx_reader.h"

#include <fstream>

#include <catch2/catch.hpp>

#include "tests/engine/trace/temp_dir.h"

namespace fb::datasets {
namespace {

void WriteRaw(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// The header of a uint8 IDX file of dims [2, 3] followed by `data`.
std::vector<uint8_t> Idx2x3(std::vector<uint8_t> data) {
  std::vector<uint8_t> b = {0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3};
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

TEST_CASE("IDX reader reads raw and gzip'd files, values and dims as written", "[datasets]") {
  test::TempDir dir;
  // Hand-written bytes: magic 0x00000803 (uint8, rank 3), dims 2x1x2, data 1..4.
  WriteRaw(dir.file("a.idx"), {0, 0, 8, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 1, 2, 3, 4});
  auto a = ReadIdxFile(dir.file("a.idx"));
  INFO(a.status().ToString());
  REQUIRE(a.ok());
  CHECK(a->dims == std::vector<int64_t>{2, 1, 2});
  CHECK(a->data == std::vector<uint8_t>{1, 2, 3, 4});

  IdxArray big{{300, 7}, std::vector<uint8_t>(2100)};
  for (size_t i = 0; i < big.data.size(); ++i) big.data[i] = static_cast<uint8_t>(i * 7);
  REQUIRE(WriteIdxFile(dir.file("b.idx.gz"), big).ok());
  auto b = ReadIdxFile(dir.file("b.idx.gz"));
  REQUIRE(b.ok());
  CHECK(b->dims == big.dims);
  CHECK(b->data == big.data);
}

TEST_CASE("IDX reader: a missing file is NotFound naming the file", "[datasets]") {
  auto r = ReadIdxFile("/nonexistent/train-images-idx3-ubyte.gz");
  REQUIRE(r.status().code() == Code::kNotFound);
  CHECK(r.status().message() == "IDX file '/nonexistent/train-images-idx3-ubyte.gz' not found");
}

TEST_CASE("IDX reader: corrupt headers are DataLoss naming the file and the problem",
          "[datasets]") {
  test::TempDir dir;
  const std::string path = dir.file("bad.idx");
  struct Case {
    std::vector<uint8_t> bytes;
    std::string message;
  };
  std::vector<Case> cases = {
      {{1, 0, 8, 1, 0, 0, 0, 1, 5}, "bad magic number: expected 0x0000 followed by type and rank, "
                                    "got bytes 1,0,8,1"},
      {{0, 0, 0x0D, 1, 0, 0, 0, 1, 5}, "unsupported data type code 13 (only unsigned byte, code 8, "
                                       "is supported)"},
      {{0, 0, 8, 0}, "rank 0 out of range [1, 4]"},
      {{0, 0, 8, 9}, "rank 9 out of range [1, 4]"},
      {{0, 0}, "truncated header (2 of 4 magic bytes)"},
      {{0, 0, 8, 2, 0, 0, 0, 2}, "truncated header: 2 dimensions need 8 bytes, found 4"},
      {{0, 0, 8, 1, 0, 0, 0, 0}, "dimension 0 is 0"},
      {Idx2x3({1, 2, 3, 4, 5}), "truncated data: the header's dimensions need 6 bytes, found 5 "
                                "in the file after its 12-byte header"},
      {Idx2x3({1, 2, 3, 4, 5, 6, 7}), "trailing bytes after the 6 bytes the header's dimensions "
                                      "describe"},
  };
  for (const Case& c : cases) {
    WriteRaw(path, c.bytes);
    auto r = ReadIdxFile(path);
    INFO(c.message);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == Code::kDataLoss);
    CHECK(r.status().message() == "IDX file '" + path + "': " + c.message);
  }
}

}  // namespace
}  // namespace fb::datasets
