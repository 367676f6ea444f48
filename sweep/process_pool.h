#pragma once
// Runs child processes a few at a time, each in its own process group with a wall-clock
// timeout, its stdout and stderr in files. Used by `flowbench sweep` to run each point of a grid
// in its own process, so that a point that crashes, hangs or leaks costs only itself.
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb::sweep {

struct ProcessSpec {
  std::vector<std::string> argv;         // argv[0] is the program's path (execv, no PATH search)
  std::string stdout_path, stderr_path;  // created or truncated; "" for /dev/null
  double timeout_s = 3600;
  // The child's environment as NAME=VALUE; empty: this process's environment.
  std::vector<std::string> env;
};

// This process's environment without the variables an MPI launcher sets for its ranks
// (OMPI_*, PMIX_*, PMI_*), so that a child started from a rank of an mpirun job (a sweep spread
// over ranks) is not taken for a rank of that job when it starts MPI itself (dist-train).
std::vector<std::string> EnvironmentWithoutMpiRank();

struct ProcessResult {
  int exit_status = -1;  // the exit code, or -1 when a signal ended the process
  int signal = 0;        // the signal that ended it (SIGKILL after a timeout), else 0
  bool timed_out = false;
  double wall_s = 0;
  std::string start_time;   // UTC, ISO 8601 ("2026-11-26T00:20:01Z")
  std::string stderr_tail;  // the last kStderrTailBytes of stderr
  bool ok() const { return exit_status == 0; }
  // "ok", "exit N", "timeout after T s", "signal N"
  std::string Describe() const;
};

inline constexpr size_t kStderrTailBytes = 1000;

// Starts task i when fewer than `jobs` run, calls `done(i, result)` on the calling thread as each
// ends, and `tick(running)` every few milliseconds with the number of children running. When
// `*stop` becomes true the running children's process groups get SIGTERM (SIGKILL 2 s later), no
// more start, and Run returns Cancelled. Internal when a child cannot be started (fork fails); a
// program that cannot be executed ends with exit status 127 and the reason in its stderr file.
Status RunProcesses(const std::vector<ProcessSpec>& tasks, int jobs,
                    const std::function<void(size_t, const ProcessResult&)>& done,
                    const std::function<void(size_t)>& tick, const std::atomic<bool>* stop);

// The current time as "YYYY-MM-DDTHH:MM:SSZ" (UTC).
std::string UtcNow();

}  // namespace fb::sweep
