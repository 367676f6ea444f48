#include "engine/trace/trace_reader.h"

#include <filesystem>
#include <fstream>
#include <limits>

#include <catch2/catch.hpp>

#include "engine/trace/trace_writer.h"
#include "tests/engine/trace/corrupt_trace_util.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

// A small valid trace: one compute event on CPU:0 and one metric.
std::string WriteSmallTrace(const test::TempDir& dir) {
  std::string path = dir.file("t.h5");
  auto w = TraceWriter::Create(path, TraceMetadata{});
  REQUIRE(w.ok());
  REQUIRE((*w)->AddStep(0, {{"a", "Add", "/device:CPU:0", 1, 10, 20, 4, 0}}).ok());
  REQUIRE((*w)->AddMetric(0, "loss", 1.5).ok());
  REQUIRE((*w)->Close().ok());
  return path;
}

// Opens the trace read-write and applies `edit` to its root group.
template <typename Fn>
void EditTrace(const std::string& path, Fn edit) {
  h5::Hdf5Guard guard;
  h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
  REQUIRE(f.valid());
  edit(f.get());
}

TEST_CASE("TraceReader reports a missing file, naming it", "[trace][errors]") {
  auto t = TraceReader::Open("/nonexistent/run.h5");
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kNotFound);
  CHECK_THAT(t.status().message(),
             Catch::Contains("/nonexistent/run.h5: cannot open trace: No such file"));
}

TEST_CASE("TraceReader rejects a file that is not HDF5", "[trace][errors]") {
  test::TempDir dir;
  std::ofstream(dir.file("x.h5")) << "{\"traceEvents\": []}";
  auto t = TraceReader::Open(dir.file("x.h5"));
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kDataLoss);
  CHECK_THAT(t.status().message(), Catch::Contains("x.h5: not an HDF5 file"));
}

TEST_CASE("TraceReader rejects a truncated trace", "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kDataLoss);
  CHECK_THAT(t.status().message(), Catch::Contains(path + ": cannot open trace (truncated"));
}

TEST_CASE("TraceReader rejects another schema_version", "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  EditTrace(path, [&](hid_t root) {
    REQUIRE(h5::WriteAttr(root, "schema_version", int64_t{99}, path).ok());
  });
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(t.status().message(),
             Catch::Contains(path + ": trace schema_version is 99, this flowbench reads versions "
                                    "1 to 2"));
}

TEST_CASE("TraceReader names a missing dataset or attribute", "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  EditTrace(path, [](hid_t root) { REQUIRE(H5Ldelete(root, "events", H5P_DEFAULT) >= 0); });
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kNotFound);
  CHECK_THAT(t.status().message(), Catch::Contains(path + ": missing dataset /events"));

  EditTrace(path, [](hid_t root) { REQUIRE(H5Adelete(root, "mode") >= 0); });
  t = TraceReader::Open(path);
  CHECK_THAT(t.status().message(), Catch::Contains(path + ": missing attribute 'mode'"));
}

// Replaces the trace's string table with `strings`.
void SetStrings(const std::string& path, const std::vector<std::string>& strings) {
  EditTrace(path, [&](hid_t root) {
    std::vector<uint8_t> data;
    std::vector<int64_t> offsets = {0};
    for (const std::string& s : strings) {
      data.insert(data.end(), s.begin(), s.end());
      offsets.push_back(static_cast<int64_t>(data.size()));
    }
    REQUIRE(H5Ldelete(root, "strings/offsets", H5P_DEFAULT) >= 0);
    REQUIRE(H5Ldelete(root, "strings/data", H5P_DEFAULT) >= 0);
    REQUIRE(h5::WriteTable(root, "strings/offsets", H5T_NATIVE_INT64, offsets, path).ok());
    REQUIRE(h5::WriteTable(root, "strings/data", H5T_NATIVE_UINT8, data, path).ok());
  });
}

TEST_CASE("TraceReader rejects ids that do not index /strings", "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  // The writer interned "" (git_revision, command_line, host) and "{}" (config) first.
  SECTION("a table's id") {
    SetStrings(path, {"", "{}"});
    auto t = TraceReader::Open(path);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
    CHECK_THAT(t.status().message(),
               Catch::Contains(path + ": /devices row 0: name id 2 is out of range [0, 2)"));
  }
  SECTION("an attribute's id") {
    SetStrings(path, {""});
    auto t = TraceReader::Open(path);
    REQUIRE_FALSE(t.ok());
    CHECK(t.status().code() == Code::kInvalidArgument);
    CHECK_THAT(t.status().message(),
               Catch::Contains(path + ": attribute 'config': string id 1 is out of range [0, 1)"));
  }
}

TEST_CASE("TraceReader rejects times whose differences would overflow", "[trace][errors]") {
  test::TempDir dir;
  const std::string path = dir.file("t.h5");
  auto w = TraceWriter::Create(path, TraceMetadata{});
  REQUIRE(w.ok());
  TraceEvent e;
  e.device = "/device:CPU:0";
  e.start_ns = std::numeric_limits<int64_t>::min();
  e.end_ns = std::numeric_limits<int64_t>::max();
  REQUIRE((*w)->AddEvent(e).ok());
  REQUIRE((*w)->Close().ok());
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kInvalidArgument);
  CHECK_THAT(t.status().message(),
             Catch::Contains(path + ": /events row 0: start_ns -9223372036854775808 or end_ns "
                                    "9223372036854775807 is outside +-2^62 ns"));
}

TEST_CASE("TraceReader rejects string offsets that do not index the string data",
          "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  EditTrace(path, [&](hid_t root) {
    REQUIRE(H5Ldelete(root, "strings/offsets", H5P_DEFAULT) >= 0);
    std::vector<int64_t> offsets = {0, 5, 2, 3};  // decreasing, and not ending at the data's size
    REQUIRE(h5::WriteTable(root, "strings/offsets", H5T_NATIVE_INT64, offsets, path).ok());
  });
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kDataLoss);
  CHECK_THAT(t.status().message(),
             Catch::Contains(path + ": dataset /strings/offsets: must start at 0 and end at the "
                                    "size of /strings/data"));
}

TEST_CASE("TraceReader rejects a table field of another type, naming dataset and field",
          "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  EditTrace(path, [&](hid_t root) {
    REQUIRE(H5Ldelete(root, "metrics", H5P_DEFAULT) >= 0);
    struct BadMetric {
      int64_t step;
      double name;  // a string id must be an int32
      double value;
    };
    h5::Handle type(H5Tcreate(H5T_COMPOUND, sizeof(BadMetric)), H5Tclose);
    H5Tinsert(type.get(), "step", HOFFSET(BadMetric, step), H5T_NATIVE_INT64);
    H5Tinsert(type.get(), "name", HOFFSET(BadMetric, name), H5T_NATIVE_DOUBLE);
    H5Tinsert(type.get(), "value", HOFFSET(BadMetric, value), H5T_NATIVE_DOUBLE);
    REQUIRE(h5::WriteTable(root, "metrics", type.get(), std::vector<BadMetric>{{0, 1, 2}}, path)
                .ok());
  });
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kInvalidArgument);
  CHECK_THAT(t.status().message(),
             Catch::Contains(path + ": dataset /metrics: field 'name' must be a 4-byte integer, "
                                    "found a 8-byte float"));
}

TEST_CASE("TraceReader rejects a string attribute of the wrong type", "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  EditTrace(path, [&](hid_t root) {
    REQUIRE(h5::WriteAttr(root, "mode", std::string("real"), path).ok());  // variable-length
  });
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kInvalidArgument);
  CHECK_THAT(t.status().message(),
             Catch::Contains(path + ": attribute 'mode' must be a fixed-length string"));
}

TEST_CASE("TraceReader reads a version-1 trace", "[trace]") {
  test::TempDir dir;
  const std::string path = test::WriteSmallTraceV2(dir.file("t.h5"));
  auto v2 = TraceReader::Open(path);
  REQUIRE(v2.ok());
  test::DowngradeToV1(path);
  auto v1 = TraceReader::Open(path);
  INFO(v1.status().ToString());
  REQUIRE(v1.ok());
  CHECK(v1->schema_version == 1);
  CHECK(v1->strings == v2->strings);
  CHECK(v1->metadata.config_json == R"({"model": "mlp", "batch": 4})");
  CHECK(v1->metadata.host == "node17");
  CHECK(v1->clock == "ns");
  REQUIRE(v1->events.size() == 8);
  CHECK(v1->str(v1->events[3].op_type) == "MatMul");
}

// Points the heap id of version 1's /strings row `row` at object `index` of its collection.
void SetHeapObjectIndex(const std::string& path, int row, uint32_t index) {
  haddr_t offset = HADDR_UNDEF;
  {
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    h5::Handle ds(H5Dopen2(f.get(), "strings", H5P_DEFAULT), H5Dclose);
    offset = H5Dget_offset(ds.get());
  }
  REQUIRE(offset != HADDR_UNDEF);
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(offset + 16 * row + 12));  // length, address, index
  const char bytes[4] = {static_cast<char>(index & 0xff), static_cast<char>(index >> 8), 0, 0};
  file.write(bytes, 4);
}

TEST_CASE("TraceReader rejects a version-1 string whose heap object does not exist",
          "[trace][errors]") {
  // libhdf5's H5HG_read indexes the collection with the id's object index unchecked: this file
  // crashed version 1's reader.
  test::TempDir dir;
  const std::string path = test::WriteSmallTraceV2(dir.file("t.h5"));
  test::DowngradeToV1(path);
  SetHeapObjectIndex(path, 3, 40000);
  TraceReadOptions in_process;  // the reader's own checks, without the child process
  in_process.isolate = false;
  auto t = TraceReader::Open(path, in_process);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kDataLoss);
  CHECK_THAT(t.status().message(),
             Catch::Contains(path + ": dataset /strings: string 3 (") &&
                 Catch::Contains("names object 40000 of the global heap collection at offset"));
}

}  // namespace
}  // namespace fb
