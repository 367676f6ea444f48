#include "engine/checkpoint/checkpoint_dir.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <regex>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "engine/checkpoint/checkpoint_file.h"
#include "engine/trace/hdf5_util.h"

namespace fb {

namespace fs = std::filesystem;

namespace {

// The regular files of `dir` whose names match `pattern` (with one capture group), with the
// captured text. Directory errors do not throw: NotFound for a missing `dir`, Internal
// otherwise.
struct Match {
  fs::path path;
  std::string group;
};
StatusOr<std::vector<Match>> MatchingFiles(const std::string& dir, const std::regex& pattern) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec == std::errc::no_such_file_or_directory)
    return NotFound("checkpoint directory ", dir, ": ", ec.message());
  if (ec) return Internal("checkpoint directory ", dir, ": cannot list: ", ec.message());
  std::vector<Match> out;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    std::error_code type_ec;
    const std::string name = it->path().filename().string();
    std::smatch m;
    if (std::regex_match(name, m, pattern) && it->is_regular_file(type_ec))
      out.push_back({it->path(), m[1].str()});
  }
  if (ec) return Internal("checkpoint directory ", dir, ": cannot list: ", ec.message());
  return out;
}

// Parses a run of decimal digits; false when empty, not all digits, or out of range.
template <typename Int>
bool ParseDigits(const std::string& s, Int* value) {
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *value);
  return ec == std::errc() && end == s.data() + s.size();
}

std::string ThisHost() {
  // TemporaryCheckpointPath("x") is "x.tmp-<host>-<pid>".
  const std::string tmp = TemporaryCheckpointPath("x");
  const size_t begin = std::string("x.tmp-").size();
  return tmp.substr(begin, tmp.rfind('-') - begin);
}

bool ProcessAlive(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

// Whether the temporary file `path` with suffix "<host>-<pid>" or "<pid>" was left by a dead
// writer of this host.
bool IsStale(const std::string& path, const std::string& suffix, const std::string& this_host) {
  const size_t dash = suffix.rfind('-');
  const std::string host = dash == std::string::npos ? "" : suffix.substr(0, dash);
  const std::string pid_text = dash == std::string::npos ? suffix : suffix.substr(dash + 1);
  pid_t pid = 0;
  if (!ParseDigits(pid_text, &pid) || pid <= 0) return false;  // not ours: leave it
  if (!host.empty() && host != this_host) return false;        // cannot check: leave it
  if (pid == getpid()) return !IsTemporaryCheckpointInUse(path);
  return !ProcessAlive(pid);
}

// Warnings and notes go to stderr, as errors do: stdout carries a command's results.
spdlog::logger& Log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = std::make_shared<spdlog::logger>(
        "flowbench.checkpoint", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    l->set_level(spdlog::default_logger()->level());
    return l;
  }();
  return *logger;
}

void Warn(const SkippedCheckpoint& s, const char* what) {
  Log().warn("{}: {}", what, s.reason.message());
}

}  // namespace

std::string CheckpointPath(const std::string& dir, int64_t step) {
  return (fs::path(dir) / ("ckpt-" + std::to_string(step) + ".h5")).string();
}

StatusOr<CheckpointListing> ListCheckpointFiles(const std::string& dir) {
  static const std::regex kName(R"(ckpt-(\d+)\.h5)");
  ASSIGN_OR_RETURN(std::vector<Match> files, MatchingFiles(dir, kName));
  CheckpointListing listing;
  for (const auto& [path, digits] : files) {
    int64_t step = 0;
    if (!ParseDigits(digits, &step)) {
      listing.ignored.push_back(
          {path.string(), InvalidArgument(path.string(), ": not a checkpoint name flowbench "
                                          "writes: step ", digits, " is above ", INT64_MAX)});
    } else if (digits.size() > 1 && digits[0] == '0') {
      listing.ignored.push_back(
          {path.string(), InvalidArgument(path.string(), ": not a checkpoint name flowbench "
                                          "writes: step ", digits, " has leading zeros")});
    } else {
      listing.steps.push_back(step);
    }
  }
  std::sort(listing.steps.begin(), listing.steps.end());
  return listing;
}

StatusOr<std::vector<int64_t>> ListCheckpointSteps(const std::string& dir) {
  ASSIGN_OR_RETURN(CheckpointListing listing, ListCheckpointFiles(dir));
  for (const SkippedCheckpoint& s : listing.ignored) Warn(s, "ignoring a file");
  return listing.steps;
}

StatusOr<std::string> LatestCheckpoint(const std::string& dir) {
  ASSIGN_OR_RETURN(std::vector<int64_t> steps, ListCheckpointSteps(dir));
  if (steps.empty()) return NotFound("no checkpoint (ckpt-<step>.h5) in ", dir);
  return CheckpointPath(dir, steps.back());
}

std::vector<std::string> RemoveStaleTemporaryFiles(const std::string& dir) {
  static const std::regex kTemp(R"(ckpt-\d+\.h5\.tmp-(.+))");
  std::vector<std::string> removed;
  auto files = MatchingFiles(dir, kTemp);
  if (!files.ok()) {
    if (files.status().code() != Code::kNotFound)
      Log().warn("{}", files.status().message());
    return removed;
  }
  const std::string host = ThisHost();
  // WriteCheckpoint holds the HDF5 guard while its temporary file exists: holding it here, no
  // save of this process can start between the check and the removal.
  h5::Hdf5Guard guard;
  for (const auto& [path, suffix] : *files) {
    if (!IsStale(path.string(), suffix, host)) continue;
    std::error_code ec;
    if (fs::remove(path, ec)) {
      removed.push_back(path.string());
      Log().info("removed {}, left by a killed save", path.string());
    } else if (ec) {
      Log().warn("cannot remove stale {}: {}", path.string(), ec.message());
    }
  }
  return removed;
}

Status PruneCheckpoints(const std::string& dir, int64_t newest_step, int keep_last) {
  if (keep_last <= 0) return Status::OK();
  ASSIGN_OR_RETURN(CheckpointListing listing, ListCheckpointFiles(dir));
  std::vector<int64_t> older;
  for (int64_t s : listing.steps)
    if (s < newest_step) older.push_back(s);
  const size_t keep_older = static_cast<size_t>(keep_last - 1);
  for (size_t i = 0; i + keep_older < older.size(); ++i) {
    const std::string path = CheckpointPath(dir, older[i]);
    std::error_code ec;
    fs::remove(path, ec);
    if (ec) return Internal(path, ": cannot remove old checkpoint: ", ec.message());
  }
  return Status::OK();
}

namespace {

// The error for a checkpoint that restore rejected although it is not corrupt.
Status HardError(const std::string& path, Status s) {
  if (s.code() == Code::kNotFound) s = Status(Code::kFailedPrecondition, s.message());
  return s.WithPrefix("cannot resume from checkpoint " + path +
                      " (not corrupt, so not skipped; left untouched): ");
}

Status AllCorrupt(const std::string& dir, const std::vector<SkippedCheckpoint>& corrupt) {
  std::string list;
  for (const SkippedCheckpoint& s : corrupt) list += "\n  " + s.reason.message();
  return DataLoss("no valid checkpoint in ", dir, ": all ", corrupt.size(),
                  " checkpoints are corrupt (remove them or the directory to start from "
                  "scratch):", list);
}

}  // namespace

StatusOr<RestoredCheckpoint> RestoreNewestValid(const std::string& dir, const RestoreFn& restore) {
  RestoredCheckpoint result;
  result.removed_temporaries = RemoveStaleTemporaryFiles(dir);
  auto listing = ListCheckpointFiles(dir);
  if (!listing.ok() && listing.status().code() == Code::kNotFound) return result;
  RETURN_IF_ERROR(listing.status());
  for (const SkippedCheckpoint& s : listing->ignored) {
    Warn(s, "ignoring a file");
    result.skipped.push_back(s);
  }
  std::vector<SkippedCheckpoint> corrupt;
  for (auto it = listing->steps.rbegin(); it != listing->steps.rend(); ++it) {
    const std::string path = CheckpointPath(dir, *it);
    StatusOr<int64_t> step = restore(path);
    if (step.ok()) {
      result.found = true;
      result.path = path;
      result.step = *step;
      return result;
    }
    Status integrity = VerifyCheckpoint(path);
    if (integrity.code() != Code::kDataLoss && integrity.code() != Code::kNotFound)
      return HardError(path, step.status());
    corrupt.push_back({path, integrity});
    Warn(corrupt.back(), "skipping a corrupt checkpoint, trying the next older one");
    result.skipped.push_back(corrupt.back());
  }
  if (!corrupt.empty()) return AllCorrupt(dir, corrupt);
  return result;
}

}  // namespace fb
