// A directory of checkpoints: listing, choosing the checkpoint to resume from (corrupt ones are
// skipped, ones that do not fit are errors), pruning, and removing temporary files of killed
// saves.
#include "engine/checkpoint/checkpoint_dir.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "engine/checkpoint/checkpoint_file.h"
#include "engine/trace/hdf5_util.h"
#include "tests/engine/trace/temp_dir.h"

namespace fb {
namespace {

namespace fs = std::filesystem;

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A checkpoint of variable w (filled with `step`) and global_step `step`.
void WriteStep(const std::string& dir, int64_t step) {
  Tensor w = Tensor::FromVector<float>(std::vector<float>(8, static_cast<float>(step)), {2, 4});
  Status s = WriteCheckpoint(CheckpointPath(dir, step), {"w", "global_step"},
                             {w, Tensor::Scalar<int64_t>(step)});
  INFO(s.ToString());
  REQUIRE(s.ok());
}

// What a Saver's restore does: reads every variable, returns the saved step.
StatusOr<int64_t> Restore(const std::string& path) {
  ASSIGN_OR_RETURN(Tensor w, ReadCheckpointTensor(path, "w", DataType::kFloat, {2, 4}));
  ASSIGN_OR_RETURN(Tensor step, ReadCheckpointTensor(path, "global_step", DataType::kInt64, {}));
  return step.scalar<int64_t>();
}

// The pid of a process that has exited.
pid_t DeadPid() {
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) _exit(0);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return pid;
}

TEST_CASE("Checkpoint names whose step cannot be read are ignored, not fatal",
          "[checkpoint][errors]") {
  test::TempDir dir;
  WriteStep(dir.path(), 3);
  WriteStep(dir.path(), 5);
  Touch(dir.file("ckpt-99999999999999999999.h5"));  // above INT64_MAX: std::stoll threw
  Touch(dir.file("ckpt-007.h5"));                   // CheckpointPath(dir, 7) is another file
  Touch(dir.file("ckpt-5.h5.tmp-123"));
  Touch(dir.file("notes.h5"));
  fs::create_directory(dir.file("ckpt-9.h5"));
  auto listing = ListCheckpointFiles(dir.path());
  INFO(listing.status().ToString());
  REQUIRE(listing.ok());
  CHECK(listing->steps == std::vector<int64_t>{3, 5});
  REQUIRE(listing->ignored.size() == 2);
  std::string messages;
  for (const SkippedCheckpoint& s : listing->ignored) messages += s.reason.message() + "\n";
  CHECK_THAT(messages, Catch::Contains(dir.file("ckpt-99999999999999999999.h5") +
                                       ": not a checkpoint name flowbench writes: step "
                                       "99999999999999999999 is above 9223372036854775807"));
  CHECK_THAT(messages, Catch::Contains(dir.file("ckpt-007.h5") +
                                       ": not a checkpoint name flowbench writes: step 007 has "
                                       "leading zeros"));
  CHECK(*LatestCheckpoint(dir.path()) == CheckpointPath(dir.path(), 5));

  auto restored = RestoreNewestValid(dir.path(), Restore);
  REQUIRE(restored.ok());
  CHECK(restored->found);
  CHECK(restored->step == 5);
  CHECK(restored->skipped.size() == 2);
}

TEST_CASE("A directory with only unreadable checkpoint names holds no checkpoint",
          "[checkpoint][errors]") {
  test::TempDir dir;
  Touch(dir.file("ckpt-99999999999999999999.h5"));
  auto restored = RestoreNewestValid(dir.path(), Restore);
  REQUIRE(restored.ok());
  CHECK_FALSE(restored->found);
  REQUIRE(restored->skipped.size() == 1);
  CHECK(restored->skipped[0].path == dir.file("ckpt-99999999999999999999.h5"));
}

TEST_CASE("Only an empty or missing directory means no checkpoint", "[checkpoint]") {
  test::TempDir dir;
  auto restored = RestoreNewestValid(dir.path(), Restore);
  REQUIRE(restored.ok());
  CHECK_FALSE(restored->found);
  restored = RestoreNewestValid(dir.file("missing"), Restore);
  REQUIRE(restored.ok());
  CHECK_FALSE(restored->found);
  CHECK(ListCheckpointSteps(dir.file("missing")).status().code() == Code::kNotFound);
  Touch(dir.file("file"));  // not a directory
  restored = RestoreNewestValid(dir.file("file"), Restore);
  CHECK(restored.status().code() == Code::kInternal);
  CHECK_THAT(restored.status().message(), Catch::Contains(dir.file("file") + ": cannot list"));
}

TEST_CASE("Resume skips corrupt newer checkpoints with a warning and restores the newest valid",
          "[checkpoint][errors]") {
  test::TempDir dir;
  for (int64_t step : {10, 20, 30, 40}) WriteStep(dir.path(), step);
  const std::string c30 = CheckpointPath(dir.path(), 30), c40 = CheckpointPath(dir.path(), 40);
  fs::resize_file(c40, fs::file_size(c40) / 2);  // truncated
  {  // one changed value in the step counter, HDF5's own checksums intact
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(c30.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    h5::Handle ds(H5Dopen2(f.get(), "global_step", H5P_DEFAULT), H5Dclose);
    const int64_t flipped = 31;
    REQUIRE(H5Dwrite(ds.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &flipped) >= 0);
  }
  const std::string before30 = ReadBytes(c30);
  auto restored = RestoreNewestValid(dir.path(), Restore);
  INFO(restored.status().ToString());
  REQUIRE(restored.ok());
  CHECK(restored->found);
  CHECK(restored->step == 20);
  CHECK(restored->path == CheckpointPath(dir.path(), 20));
  REQUIRE(restored->skipped.size() == 2);
  CHECK(restored->skipped[0].path == c40);
  CHECK(restored->skipped[0].reason.code() == Code::kDataLoss);
  CHECK_THAT(restored->skipped[0].reason.message(), Catch::Contains(c40 + ": cannot open"));
  CHECK(restored->skipped[1].path == c30);
  CHECK_THAT(restored->skipped[1].reason.message(),
             Catch::Contains(c30 + ": variable 'global_step': corrupt checkpoint: crc32"));
  // Skipped files are left in place, unchanged.
  CHECK(ReadBytes(c30) == before30);
  CHECK(fs::exists(c40));
}

TEST_CASE("Resume fails when every checkpoint is corrupt, naming each", "[checkpoint][errors]") {
  test::TempDir dir;
  for (int64_t step : {1, 2}) {
    WriteStep(dir.path(), step);
    std::ofstream(CheckpointPath(dir.path(), step), std::ios::trunc) << "garbage";
  }
  auto restored = RestoreNewestValid(dir.path(), Restore);
  CHECK(restored.status().code() == Code::kDataLoss);
  CHECK_THAT(restored.status().message(),
             Catch::Contains("no valid checkpoint in " + dir.path() + ": all 2 checkpoints are "
                             "corrupt"));
  CHECK_THAT(restored.status().message(),
             Catch::Contains(CheckpointPath(dir.path(), 1) + ": not an HDF5 file"));
  CHECK_THAT(restored.status().message(),
             Catch::Contains(CheckpointPath(dir.path(), 2) + ": not an HDF5 file"));
}

TEST_CASE("An intact newest checkpoint that lacks a variable is an error, never skipped",
          "[checkpoint][errors]") {
  test::TempDir dir;
  WriteStep(dir.path(), 10);
  const std::string c20 = CheckpointPath(dir.path(), 20);
  SECTION("a variable is missing") {
    REQUIRE(WriteCheckpoint(c20, {"v", "global_step"},
                            {Tensor::Scalar<float>(1.f), Tensor::Scalar<int64_t>(20)})
                .ok());
    auto restored = RestoreNewestValid(dir.path(), Restore);
    REQUIRE_FALSE(restored.ok());
    // Not NotFound: callers must not read it as "no checkpoint".
    CHECK(restored.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(restored.status().message(),
               Catch::Contains("cannot resume from checkpoint " + c20));
    CHECK_THAT(restored.status().message(),
               Catch::Contains(c20 + ": no variable 'w' in checkpoint (it holds: global_step, v)"));
  }
  SECTION("a variable has another shape") {
    REQUIRE(WriteCheckpoint(c20, {"w", "global_step"},
                            {Tensor::FromVector<float>({1, 2}, {2}), Tensor::Scalar<int64_t>(20)})
                .ok());
    auto restored = RestoreNewestValid(dir.path(), Restore);
    CHECK(restored.status().code() == Code::kInvalidArgument);
    CHECK_THAT(restored.status().message(),
               Catch::Contains(c20 + ": variable 'w': checkpoint holds shape [2], expected [2,4]"));
  }
  CHECK(fs::exists(c20));
  CHECK(fs::exists(CheckpointPath(dir.path(), 10)));
}

TEST_CASE("A changed variable name is corruption when the crc32 covers it, a misfit without",
          "[checkpoint][errors]") {
  test::TempDir dir;
  WriteStep(dir.path(), 10);
  WriteStep(dir.path(), 20);
  const std::string c20 = CheckpointPath(dir.path(), 20);
  {  // "w" -> "v": one bit, written through HDF5 so that its own checksums stay valid
    h5::Hdf5Guard guard;
    h5::Handle f(H5Fopen(c20.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    REQUIRE(H5Lmove(f.get(), "w", f.get(), "v", H5P_DEFAULT, H5P_DEFAULT) >= 0);
  }
  SECTION("version 2: skipped as corrupt") {
    auto restored = RestoreNewestValid(dir.path(), Restore);
    REQUIRE(restored.ok());
    CHECK(restored->step == 10);
    REQUIRE(restored->skipped.size() == 1);
    CHECK_THAT(restored->skipped[0].reason.message(),
               Catch::Contains(c20 + ": variable 'v': corrupt checkpoint: crc32 checksum "
                                     "mismatch"));
  }
  SECTION("version 1 (no crc32): an error naming the file and the variable") {
    {
      h5::Hdf5Guard guard;
      h5::Handle f(H5Fopen(c20.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
      for (const char* name : {"v", "global_step"})
        REQUIRE(H5Adelete_by_name(f.get(), name, "crc32", H5P_DEFAULT) >= 0);
      h5::Handle a(H5Aopen(f.get(), "format_version", H5P_DEFAULT), H5Aclose);
      const int64_t one = 1;
      REQUIRE(H5Awrite(a.get(), H5T_NATIVE_INT64, &one) >= 0);
    }
    auto restored = RestoreNewestValid(dir.path(), Restore);
    CHECK(restored.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(restored.status().message(), Catch::Contains(c20 + ": no variable 'w'"));
  }
}

TEST_CASE("A flipped bit in a stored variable name is never a fresh start",
          "[checkpoint][errors]") {
  test::TempDir dir;
  // Enough variables that the root group keeps its links in dense storage (a fractal heap).
  std::vector<std::string> names;
  std::vector<Tensor> tensors;
  for (int i = 0; i < 20; ++i) {
    names.push_back("variable_number_" + std::to_string(100 + i));
    tensors.push_back(Tensor::Scalar<float>(static_cast<float>(i)));
  }
  auto restore = [&](const std::string& path) -> StatusOr<int64_t> {
    for (const std::string& n : names)
      RETURN_IF_ERROR(ReadCheckpointTensor(path, n, DataType::kFloat, {}).status());
    return int64_t{0};
  };
  const std::string c1 = CheckpointPath(dir.path(), 1), c2 = CheckpointPath(dir.path(), 2);
  REQUIRE(WriteCheckpoint(c1, names, tensors).ok());
  REQUIRE(WriteCheckpoint(c2, names, tensors).ok());
  const std::string original = ReadBytes(c2);
  const size_t at = original.find("variable_number_107");
  REQUIRE(at != std::string::npos);
  // "_107" -> "_106" (a duplicate name), "_10w" (a new name), "_1\x30"... and a flip in "number".
  for (const auto& [offset, bit] : std::vector<std::pair<size_t, char>>{
           {18, 0x01}, {18, 0x40}, {17, 0x01}, {10, 0x04}}) {
    INFO("byte " << offset << " bit " << int(bit));
    std::string bytes = original;
    bytes[at + offset] ^= bit;
    std::ofstream(c2, std::ios::binary | std::ios::trunc) << bytes;
    auto restored = RestoreNewestValid(dir.path(), restore);
    INFO(restored.status().ToString());
    // Detected by HDF5's metadata checksums or by flowbench's own checks: either way the file
    // is corrupt, skipped with a warning naming it, and the older checkpoint is restored.
    REQUIRE(restored.ok());
    CHECK(restored->found);
    CHECK(restored->path == c1);
    REQUIRE(restored->skipped.size() == 1);
    CHECK_THAT(restored->skipped[0].reason.message(), Catch::Contains(c2 + ": "));
  }
}

TEST_CASE("Pruning keeps the newest checkpoints up to the one just written",
          "[checkpoint]") {
  test::TempDir dir;
  for (int64_t step : {10, 20, 25, 30, 40}) WriteStep(dir.path(), step);
  // 30 and 40 are newer than the checkpoint just written (25): corrupt ones a resume skipped.
  REQUIRE(PruneCheckpoints(dir.path(), 25, 2).ok());
  CHECK(*ListCheckpointSteps(dir.path()) == std::vector<int64_t>{20, 25, 30, 40});
  REQUIRE(PruneCheckpoints(dir.path(), 40, 1).ok());
  CHECK(*ListCheckpointSteps(dir.path()) == std::vector<int64_t>{40});
  REQUIRE(PruneCheckpoints(dir.path(), 40, 0).ok());
  CHECK(*ListCheckpointSteps(dir.path()) == std::vector<int64_t>{40});
}

TEST_CASE("Temporary files of dead writers are removed, those of live writers kept",
          "[checkpoint]") {
  test::TempDir dir;
  const std::string host_pid = TemporaryCheckpointPath(dir.file("ckpt-1.h5"));
  const std::string host = host_pid.substr(
      dir.file("ckpt-1.h5.tmp-").size(),
      host_pid.rfind('-') - dir.file("ckpt-1.h5.tmp-").size());
  const pid_t dead = DeadPid();
  const std::string dead_tmp = dir.file("ckpt-1.h5.tmp-" + host + "-" + std::to_string(dead));
  const std::string legacy_tmp = dir.file("ckpt-2.h5.tmp-" + std::to_string(dead));
  const std::string own_tmp = TemporaryCheckpointPath(dir.file("ckpt-3.h5"));  // a dead namesake
  const std::string live_tmp =
      dir.file("ckpt-4.h5.tmp-" + host + "-" + std::to_string(getppid()));
  const std::string other_host_tmp = dir.file("ckpt-5.h5.tmp-elsewhere-" + std::to_string(dead));
  const std::string unrelated = dir.file("notes.tmp-" + std::to_string(dead));
  for (const std::string& p : {dead_tmp, legacy_tmp, own_tmp, live_tmp, other_host_tmp, unrelated})
    Touch(p);
  std::vector<std::string> removed = RemoveStaleTemporaryFiles(dir.path());
  std::sort(removed.begin(), removed.end());
  CHECK(removed == std::vector<std::string>{dead_tmp, legacy_tmp, own_tmp});
  CHECK_FALSE(fs::exists(dead_tmp));
  CHECK_FALSE(fs::exists(legacy_tmp));
  CHECK_FALSE(fs::exists(own_tmp));
  CHECK(fs::exists(live_tmp));
  CHECK(fs::exists(other_host_tmp));
  CHECK(fs::exists(unrelated));
  CHECK(RemoveStaleTemporaryFiles(dir.file("missing")).empty());

  // Resume cleans up too.
  Touch(dead_tmp);
  auto restored = RestoreNewestValid(dir.path(), Restore);
  REQUIRE(restored.ok());
  CHECK(restored->removed_temporaries == std::vector<std::string>{dead_tmp});
}

}  // namespace
}  // namespace fb
