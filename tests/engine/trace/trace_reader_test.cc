#include "engine/trace/trace_reader.h"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "engine/trace/trace_writer.h"
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
             Catch::Contains(path + ": trace schema_version is 99, this flowbench reads version 1"));
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

TEST_CASE("TraceReader rejects ids that do not index /strings", "[trace][errors]") {
  test::TempDir dir;
  std::string path = WriteSmallTrace(dir);
  EditTrace(path, [&](hid_t root) {
    REQUIRE(H5Ldelete(root, "strings", H5P_DEFAULT) >= 0);
    REQUIRE(h5::WriteStrings(root, "strings", {"only-one"}, path).ok());
  });
  auto t = TraceReader::Open(path);
  REQUIRE_FALSE(t.ok());
  CHECK(t.status().code() == Code::kInvalidArgument);
  CHECK_THAT(t.status().message(), Catch::Contains(path + ": /devices row 0: type id 1 is out of "
                                                          "range [0, 1)"));
}

}  // namespace
}  // namespace fb
