#pragma once
// Runs a sweep (docs/sweeps.md): expands the spec's grid, starts each run as its own process
// (`BINARY COMMAND FLAGS --metrics-json OUT/metrics/<run>.json`), `jobs` simulated runs at a
// time and `real_jobs` real ones (real runs measure time: by default one at a time, after the
// simulated ones), each with the spec's timeout; appends a journal row per finished run, failed
// or not, and rewrites OUT/results.h5 (sweep_results.h) from the journals every few seconds
// while it runs and once at its end.
//
// Files under OUT: journal.rank<R>.jsonl, results.h5, metrics/<run>.json, logs/<run>.out and
// .err, traces/<run>.h5 (spec `trace: true`), validation.json (--validate, mode both).
//
// Under mpirun (OMPI_COMM_WORLD_RANK/SIZE or PMI_RANK/SIZE in the environment) rank R starts the
// runs i with i % size == R; every rank writes its own journal, and rank 0 waits for the others'
// end markers (OUT/.done.rank<R>) before writing the final table. No MPI library is used.
#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/framework/status.h"
#include "sweep/sweep_spec.h"

namespace fb::sweep {

struct SweepOptions {
  std::string out_dir;  // "" -> "sweeps/<spec name>"
  std::string binary;   // the flowbench executable the runs start (usually /proc/self/exe)
  int jobs = 1;
  int real_jobs = 1;
  bool resume = false;
  bool dry_run = false;
  int64_t validate = 0;          // real runs of this many simulated points (mode sim)
  std::string commit;            // BuildCommit()
  std::FILE* progress = stderr;  // nullptr: silent
  bool tty = false;
  std::FILE* report = stdout;               // the dry run's list of runs
  const std::atomic<bool>* stop = nullptr;  // set by SIGINT/SIGTERM: stop starting, end runs
};

struct SweepSummary {
  size_t planned = 0;  // runs of this rank
  size_t skipped = 0;  // already done (--resume)
  size_t finished = 0, failed = 0;
  std::string results_path;
  // The first few failed runs of this rank: "point 3 rep 0 sim (exit 105): <last stderr line>".
  std::vector<std::string> failures;
  nlohmann::json validation;  // ValidationReport, or null
};

// Runs `spec`. FailedPrecondition when OUT already holds a journal and `resume` is false (the
// message names OUT and says to pass --resume); Cancelled when `stop` was set (the journal and
// the table hold every finished run); Internal/NotFound for files that cannot be written or a
// binary that does not exist. A run that fails is a row with its exit status, not an error.
StatusOr<SweepSummary> RunSweep(const SweepSpec& spec, const FlagCatalog& flags,
                                const SweepOptions& options);

// Rewrites OUT/results.h5 from OUT's journals (export and plotting of a running sweep).
Status RebuildResults(const SweepSpec& spec, const std::string& out_dir, const std::string& commit);

}  // namespace fb::sweep
