// IDX headers that declare far more data than the file holds (tests/data/bad/idx_*): the reader
// checks the declared size against the file (or, gzip'd, reads the data it has) before it
// allocates, so a 30-byte file claiming 16 GiB fails fast with DataLoss.
#include <catch2/catch.hpp>

#include "datasets/idx_reader.h"
#include "tests/memory_cap.h"

namespace fb::datasets {
namespace {

std::string BadFile(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/tests/data/bad/" + name;
}

TEST_CASE("IDX header claiming 16 GiB in a 30-byte file is DataLoss without allocating it",
          "[datasets]") {
  const std::string path = BadFile("idx_16gib_in_30_bytes.idx");
  REQUIRE(test::RunWithMemoryCap([&] { return !ReadIdxFile(path).ok(); }) == 0);
  auto r = ReadIdxFile(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK(r.status().message() ==
        "IDX file '" + path + "': truncated data: the header's dimensions need 17179869184 "
        "bytes, found 14 in the file after its 16-byte header");
}

// Found by the idx fuzz target: the product of the dimensions overflowed int64 (UBSan) before the
// size limit was checked.
TEST_CASE("IDX dimensions whose product overflows are DataLoss", "[datasets]") {
  const std::string path = BadFile("idx_dims_overflow.idx");
  auto r = ReadIdxFile(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK_THAT(r.status().message(),
             Catch::Contains(path) && Catch::Contains("dimensions too large"));
}

TEST_CASE("gzip'd IDX header claiming 16 GiB with 14 bytes of data is DataLoss without "
          "allocating it", "[datasets]") {
  const std::string path = BadFile("idx_16gib_in_30_bytes.idx.gz");
  REQUIRE(test::RunWithMemoryCap([&] { return !ReadIdxFile(path).ok(); }) == 0);
  auto r = ReadIdxFile(path);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kDataLoss);
  CHECK(r.status().message() ==
        "IDX file '" + path + "': truncated data: the header's dimensions need 17179869184 "
        "bytes, found 14");
}

}  // namespace
}  // namespace fb::datasets
