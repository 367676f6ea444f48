#pragma once
// The sweep's journal: one JSON line per finished run, appended (and fdatasync'd) as each run
// ends, so that a killed sweep loses at most the runs in flight and `--resume` knows which runs
// are done. The results table (sweep_results.h) is rebuilt from it. Under mpirun each rank
// appends to its own file, OUT/journal.rank<R>.jsonl (rank 0 of a plain run included).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/framework/status.h"

namespace fb::sweep {

// One run's row: its settings, metrics and provenance.
struct SweepRow {
  int64_t point = 0;
  int64_t repetition = 0;
  std::string mode, command, hash;
  std::vector<std::pair<std::string, std::string>> settings;
  nlohmann::json metrics = nlohmann::json::object();  // flat: name -> number | string
  int64_t exit_status = -1;                           // -1 when a signal ended the run
  int64_t signal = 0;
  std::string status;  // "ok", "exit N", "timeout after T s", "signal N (...)"
  double wall_s = 0;
  std::string start_time, commit, host, trace, error, command_line;
  std::string key() const { return hash + "-r" + std::to_string(repetition); }
  bool ok() const { return exit_status == 0; }
};

nlohmann::json RowToJson(const SweepRow& row);
StatusOr<SweepRow> RowFromJson(const nlohmann::json& j);

// Appends `row` as one line to `path` and fdatasyncs it. Internal naming the path on failure.
Status AppendRow(const std::string& path, const SweepRow& row);

// The rows of every OUT/journal*.jsonl, the last one of each key (a resumed run's retry replaces
// the failure), ordered by point, then simulated before real runs, then repetition. A line that
// does not parse (the torn end of a killed sweep's write) is skipped. NotFound when `dir` does not
// exist.
StatusOr<std::vector<SweepRow>> ReadJournals(const std::string& dir);

// The path of rank `rank`'s journal in `dir`.
std::string JournalPath(const std::string& dir, int rank);

// A command's --metrics-json document as one flat object of numbers and strings:
//   nested objects  "a.b.c" (an object of more than 16 members is summarised like an array);
//   numbers, bools  numbers; strings kept; nulls dropped;
//   arrays          of numbers: "k.count", "k.min", "k.mean", "k.max", "k.sum";
//                   of objects: "k.count" and the same statistics of each numeric member
//                   ("devices.busy_s.max"); strings inside arrays dropped.
nlohmann::json FlattenMetrics(const nlohmann::json& metrics);

}  // namespace fb::sweep
