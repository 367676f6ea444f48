#pragma once
// A directory of periodic checkpoints, "<dir>/ckpt-<step>.h5" (engine/checkpoint/checkpoint_file.h
// for one file): listing them, choosing the one to resume from, and cleaning up after killed
// saves. Used by CheckpointManager (engine/checkpoint/saver.h) and mpi::VariableCheckpointer.
//
// How resume chooses a checkpoint (RestoreNewestValid), newest step first:
//   - the directory does not exist or holds no ckpt-<step>.h5: "no checkpoint", start from
//     scratch. This is the ONLY outcome that means "start from scratch";
//   - a checkpoint that is corrupt or unreadable (DataLoss: not HDF5, truncated, a failed
//     Fletcher32 or crc32 checksum; or it vanished) is skipped with a warning naming the file
//     and the reason, and the next older one is tried; the skipped file is left in place;
//   - a checkpoint that is intact but does not fit the model (a missing variable, another dtype
//     or shape, not a flowbench checkpoint, a format_version this build cannot read) is a hard
//     error naming the file and the variable: it is never skipped, and since the caller stops,
//     never overwritten;
//   - when every checkpoint is corrupt the result is a DataLoss error naming each of them;
//   - a file named like a checkpoint whose step cannot be read (ckpt-99999999999999999999.h5,
//     ckpt-007.h5) is not a checkpoint flowbench wrote: it is ignored with a warning.
// Warnings go to stderr (an spdlog logger) and are also returned (RestoredCheckpoint::skipped),
// for the caller to show or test.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb {

// "<dir>/ckpt-<step>.h5".
std::string CheckpointPath(const std::string& dir, int64_t step);

// A file that was not used, and why.
struct SkippedCheckpoint {
  std::string path;
  Status reason;
};

struct CheckpointListing {
  std::vector<int64_t> steps;              // of the files ckpt-<step>.h5, ascending
  std::vector<SkippedCheckpoint> ignored;  // ckpt-<digits>.h5 whose step is unreadable
};

// The checkpoint files of `dir` (regular files named exactly as CheckpointPath names them;
// temporary files of unfinished saves are not listed). Names ckpt-<digits>.h5 with a step above
// INT64_MAX or with leading zeros are `ignored` (InvalidArgument naming the file). NotFound
// naming `dir` when it does not exist; Internal when it cannot be read.
StatusOr<CheckpointListing> ListCheckpointFiles(const std::string& dir);
// ListCheckpointFiles's steps; logs a warning for each ignored file.
StatusOr<std::vector<int64_t>> ListCheckpointSteps(const std::string& dir);
// The path of the checkpoint with the highest step in `dir` (not checked for corruption: resume
// with RestoreNewestValid). NotFound naming `dir` when there is none (or no such directory).
StatusOr<std::string> LatestCheckpoint(const std::string& dir);

// Removes the temporary files "<dir>/ckpt-<step>.h5.tmp-<host>-<pid>" (and the older form
// "...tmp-<pid>") that killed or crashed saves left behind: those written on this host whose
// process is dead, or that carry this process's pid but are not being written by it now (a dead
// process that had the same pid). Files of live writers, and of other hosts (whose processes
// cannot be checked), are kept. Returns the paths removed; a file that cannot be removed is
// logged and kept. A missing directory is not an error.
std::vector<std::string> RemoveStaleTemporaryFiles(const std::string& dir);

// Deletes the checkpoints of `dir` with a step below `newest_step`, except the `keep_last` - 1
// newest of them (so that, with the file of `newest_step`, keep_last are left). Checkpoints with
// a higher step (corrupt ones skipped by a resume) are neither counted nor deleted. keep_last
// <= 0 keeps everything. Internal naming the file when one cannot be removed.
Status PruneCheckpoints(const std::string& dir, int64_t newest_step, int keep_last);

// What RestoreNewestValid did.
struct RestoredCheckpoint {
  bool found = false;     // false: the directory holds no checkpoint; start from scratch
  std::string path;       // the checkpoint restored (when found)
  int64_t step = 0;       // what the restore function returned for it (when found)
  std::vector<SkippedCheckpoint> skipped;  // newer corrupt checkpoints, ignored names
  std::vector<std::string> removed_temporaries;  // RemoveStaleTemporaryFiles's result
};

// Restores one checkpoint file and returns its global step; must either succeed or leave the
// variables to be overwritten by the next call.
using RestoreFn = std::function<StatusOr<int64_t>(const std::string& path)>;

// Restores the newest valid checkpoint of `dir` with `restore`, following the rules at the top
// of this file (after RemoveStaleTemporaryFiles). Errors: a hard error of `restore` naming the
// file and the variable (the code of a missing variable, NotFound, becomes FailedPrecondition so
// that it cannot be mistaken for "no checkpoint"); DataLoss listing every file when all
// checkpoints are corrupt; Internal when `dir` cannot be read.
StatusOr<RestoredCheckpoint> RestoreNewestValid(const std::string& dir, const RestoreFn& restore);

}  // namespace fb
