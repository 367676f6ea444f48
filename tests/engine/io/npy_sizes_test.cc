// .npy headers that declare more than the file holds (tests/data/bad/npy_*): every declared size
// is checked against the file, with overflow-checked products, before anything is allocated.
#include <catch2/catch.hpp>

#include "engine/io/npy.h"
#include "tests/memory_cap.h"

namespace fb {
namespace {

std::string BadFile(const std::string& name) {
  return std::string(FB_SOURCE_DIR) + "/tests/data/bad/" + name;
}

// Reads `path` in a child capped at 1 GiB more than the test maps, then in this process; returns
// the in-process status.
Status ReadNpyCapped(const std::string& path) {
  INFO(path);
  REQUIRE(test::RunWithMemoryCap([&] { return !ReadNpy(path).ok(); }) == 0);
  auto t = ReadNpy(path);
  REQUIRE_FALSE(t.ok());
  return t.status();
}

TEST_CASE("npy shape (1e12,) with no data is DataLoss before any allocation", "[io][npy]") {
  const std::string path = BadFile("npy_shape_1e12_no_data.npy");
  Status s = ReadNpyCapped(path);
  CHECK(s.code() == Code::kDataLoss);
  CHECK_THAT(s.message(), Catch::Contains(path) &&
                              Catch::Contains("expected 4000000000000 bytes for "
                                              "float[1000000000000], found 0"));
}

TEST_CASE("npy header length of 4 GiB in a 14-byte file is DataLoss", "[io][npy]") {
  const std::string path = BadFile("npy_header_len_4gib.npy");
  Status s = ReadNpyCapped(path);
  CHECK(s.code() == Code::kDataLoss);
  CHECK_THAT(s.message(), Catch::Contains(path) &&
                              Catch::Contains("header length field says 4294967295 bytes, "
                                              "found 2 bytes after it"));
}

TEST_CASE("npy shape whose element count overflows int64 is DataLoss", "[io][npy]") {
  const std::string path = BadFile("npy_shape_overflow.npy");
  Status s = ReadNpyCapped(path);
  CHECK(s.code() == Code::kDataLoss);
  CHECK_THAT(s.message(), Catch::Contains(path) && Catch::Contains("[4294967296,4294967296,4]") &&
                              Catch::Contains("overflows int64"));
}

// Found by the npy fuzz target: a C++ bool must hold 0 or 1 (UBSan: "load of value 32").
TEST_CASE("npy bool data with a byte other than 0 or 1 is DataLoss naming the element",
          "[io][npy]") {
  const std::string path = BadFile("npy_bool_byte_32.npy");
  auto t = ReadNpy(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kDataLoss);
  CHECK_THAT(t.status().message(),
             Catch::Contains(path) &&
                 Catch::Contains("bool element 2 holds byte 32, expected 0 or 1"));
}

}  // namespace
}  // namespace fb
