// Readers handed another kind of flowbench HDF5 file say what it is: a profile given to
// --cost-model measured: or `flowbench trace summary` was "trace schema_version is 4, this
// flowbench reads versions 1 to 2", sweep results were "missing attribute 'seed'", a trace given
// to `sweep export` "missing attribute 'schema'".
#include "engine/trace/hdf5_file_kind.h"

#include <catch2/catch.hpp>

#include "engine/checkpoint/checkpoint_file.h"
#include "engine/framework/tensor.h"
#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_writer.h"
#include "sim/profile.h"
#include "sweep/sweep_results.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

const std::string kProfile = std::string(FB_SOURCE_DIR) + "/tests/data/profile_schema3.h5";

std::string WriteTrace(const test::TempDir& dir) {
  const std::string path = dir.file("run.h5");
  auto w = TraceWriter::Create(path, TraceMetadata{});
  REQUIRE(w.ok());
  REQUIRE((*w)->AddStep(0, {{"a", "Add", "/device:CPU:0", 1, 10, 20, 4, 0}}).ok());
  REQUIRE((*w)->Close().ok());
  return path;
}

std::string WriteSweepResults(const test::TempDir& dir) {
  const std::string path = dir.file("results.h5");
  sweep::SweepRow row;
  row.mode = row.command = "sim";
  row.status = "ok";
  const sweep::ResultsTable table = sweep::BuildResultsTable({row}, "s", "s.yaml", "", "abc");
  REQUIRE(sweep::WriteResultsTable(table, path).ok());
  return path;
}

std::string WriteCheckpointFile(const test::TempDir& dir) {
  const std::string path = dir.file("ckpt-1.h5");
  Tensor t(DataType::kFloat, TensorShape({1}));
  t.data<float>()[0] = 1;
  REQUIRE(WriteCheckpoint(path, {"w"}, {t}).ok());
  return path;
}

TEST_CASE("Each reader names the kind of a flowbench file it was given instead",
          "[trace][errors]") {
  test::TempDir dir;
  const std::string trace = WriteTrace(dir);
  const std::string results = WriteSweepResults(dir);
  const std::string checkpoint = WriteCheckpointFile(dir);

  Status s = TraceReader::Open(kProfile).status();
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Catch::Contains("profile_schema3.h5: a flowbench profile, not a "
                                          "flowbench trace (use it with --cost-model profile:"));
  CHECK_THAT(TraceReader::Open(results).status().message(),
             Catch::Contains("results.h5: a flowbench sweep results table, not a flowbench trace"));
  CHECK_THAT(sim::ReadProfile(trace).status().message(),
             Catch::Contains("run.h5: a flowbench trace, not a flowbench profile (read it with "
                             "flowbench trace summary, or replay it with --cost-model measured:"));
  CHECK_THAT(sweep::ReadResultsTable(kProfile).status().message(),
             Catch::Contains("a flowbench profile, not a flowbench sweep results table"));
  CHECK_THAT(TraceReader::Open(checkpoint).status().message(),
             Catch::Contains("ckpt-1.h5: a flowbench checkpoint, not a flowbench trace"));

  // Each kind still reads as itself.
  CHECK(TraceReader::Open(trace).ok());
  CHECK(sim::ReadProfile(kProfile).ok());
  CHECK(sweep::ReadResultsTable(results).ok());
  CHECK(VerifyCheckpoint(checkpoint).ok());
}

TEST_CASE("The profile reader words a missing path or a directory as a profile",
          "[trace][errors]") {
  test::TempDir dir;
  CHECK_THAT(sim::ReadProfile(dir.path()).status().message(),
             Catch::Contains(dir.path() + ": profile is not a regular file"));
  CHECK_THAT(sim::ReadProfile(dir.file("none.h5")).status().message(),
             Catch::Contains("none.h5: cannot open profile: No such file"));
}

}  // namespace
}  // namespace fb
