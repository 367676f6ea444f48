#pragma once
// The results table of a sweep, OUT/results.h5 (docs/sweeps.md, "Results"):
//
//   root attributes  schema "flowbench-sweep", schema_version 1, name, spec_path, commit
//                    (fixed-length strings; schema_version int64)
//   /spec            uint8: the spec file's text
//   /results         one compound record per run (point x mode x repetition), chunked and
//                    gzip'd; members in this order:
//                      provenance  point, repetition (int64), mode, command, hash, status,
//                                  exit_status, signal (int64), wall_s (float64), start_time,
//                                  commit, host, trace, command_line, error (stderr tail)
//                      settings    every fixed flag and axis, as the spec names them:
//                                  float64 when every value is a number, else a string
//                      metrics     every key of the flattened --metrics-json (FlattenMetrics):
//                                  float64 (NaN where a run lacks it) or a string
//                    Strings are fixed-length, NUL-padded (no variable-length strings: pandas
//                    reads the table with pd.DataFrame(h5py.File(p)["results"][()])). A name
//                    that collides with a provenance member gets "setting." or "metric.".
//   /columns         compound {name, kind ("provenance" | "setting" | "metric")}, table order
//
// Written to a temporary file in the same directory, fsync'd and renamed over the old one: a
// reader sees the old table or the new one, never half of one.
#include <string>
#include <vector>

#include "engine/framework/status.h"
#include "sweep/sweep_journal.h"

namespace fb::sweep {

inline constexpr int64_t kSweepSchemaVersion = 1;

// One column: numbers (NaN for missing) or strings ("" for missing).
struct ResultsColumn {
  std::string name, kind;  // kind: provenance | setting | metric
  bool is_string = false;
  bool is_integer = false;  // int64 on disk (provenance counters)
  std::vector<double> numbers;
  std::vector<std::string> strings;
};

struct ResultsTable {
  std::string name, spec_path, spec_text, commit;
  int64_t schema_version = kSweepSchemaVersion;
  std::vector<ResultsColumn> columns;
  size_t rows() const;
  // The column named `name`, or nullptr.
  const ResultsColumn* Find(const std::string& name) const;
};

// The table of `rows` (columns as described above).
ResultsTable BuildResultsTable(const std::vector<SweepRow>& rows, const std::string& name,
                               const std::string& spec_path, const std::string& spec_text,
                               const std::string& commit);

// Writes `table` to `path` atomically. Internal naming the path when HDF5 or the rename fails.
Status WriteResultsTable(const ResultsTable& table, const std::string& path);

// Reads a results file, checking its structure against the file's size (engine/trace/
// hdf5_checked.h) before reading. NotFound (no file), DataLoss (not HDF5, truncated),
// InvalidArgument (not a sweep table: wrong schema attribute or version, /results not a
// compound of numbers and fixed-length strings), each naming the file.
StatusOr<ResultsTable> ReadResultsTable(const std::string& path);

// Writes `table` as CSV (RFC 4180 quoting; numbers with 17 significant digits, NaN as an empty
// field). Internal naming `path` when it cannot be written.
Status WriteResultsCsv(const ResultsTable& table, const std::string& path);

}  // namespace fb::sweep
