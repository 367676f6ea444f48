#pragma once
// A sweep spec (docs/sweeps.md): a YAML file (yaml-cpp, Debian libyaml-cpp-dev) naming the
// commands a sweep runs, the flags every point gets, and the axes whose values it varies:
//
//   name: lenet-placement        # default: the file's stem
//   mode: sim                    # sim | real | both: which command runs each point
//   sim_command: sim             # the simulated command (sim, place), default sim
//   real_command: train          # the real command (train, dist-train, lstm, benchmark), default
//   train repetitions: 3               # runs of each point, default 1 timeout_s: 600 # per run,
//   default 3600 trace: false                 # pass --trace OUT/traces/<run>.h5 to commands that
//   take it launcher: [mpirun, -np, 3]   # argv prefix of every real run (dist-train), default none
//   fixed: {model: lenet, steps: 5, sim.platform: star_4.xml}
//   axes:
//     placer: [single, greedy, heft]            # a list
//     batch-size: {from: 16, to: 64, step: 16}  # an arithmetic range, both ends included
//     ps: {from: 1, to: 32, times: 2}           # a geometric range: 1 2 4 8 16 32
//   zip:                                        # groups of lists that advance together
//     - {real.devices: [cpu:1, cpu:2], sim.platform: [cpu1.xml, cpu2.xml]}
//
// Flag names are the commands' long flags without "--". A name is passed to every command that
// accepts it; "sim.NAME" and "real.NAME" only to the simulated or the real command. A flag
// that takes no value (a switch) gets "true" to pass it and "false" to leave it out.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb::sweep {

// The long flags of each `flowbench` command (without "--"), and whether each takes a value;
// the sweep command builds it from its CLI11 app, tests by hand.
struct FlagCatalog {
  std::map<std::string, std::map<std::string, bool>> commands;  // command -> flag -> takes value
  bool Has(const std::string& command, const std::string& flag) const;
  bool TakesValue(const std::string& command, const std::string& flag) const;
};

// One varied setting: a name and its values in order (an axis of its own, or a member of a
// zipped group).
struct AxisSpec {
  std::string name;
  std::vector<std::string> values;
};

// Axes vary independently (a cross product); the members of a zipped group advance together, so
// a group counts as one axis whose length is its members' common length.
struct AxisGroup {
  std::vector<AxisSpec> members;
  size_t size() const { return members.empty() ? 0 : members[0].values.size(); }
};

enum class SweepMode { kSim, kReal, kBoth };
const char* SweepModeName(SweepMode m);

struct SweepSpec {
  std::string path;  // the spec file
  std::string text;  // its contents (kept in the results file)
  std::string name;
  SweepMode mode = SweepMode::kSim;
  std::string sim_command = "sim";
  std::string real_command = "train";
  int repetitions = 1;
  double timeout_s = 3600;
  bool trace = false;
  std::vector<std::string> launcher;
  std::vector<std::pair<std::string, std::string>> fixed;  // in file order
  std::vector<AxisGroup> groups;                           // axes, then zipped groups
  // Metrics compared by --validate and mode both (predicted vs measured step time); default
  // per command (DefaultStepTimeMetric).
  std::string sim_step_metric, real_step_metric;

  // Points in the grid: the product of the groups' sizes (1 with no axes).
  uint64_t NumPoints() const;
};

// The most points a spec may expand to.
inline constexpr uint64_t kMaxSweepPoints = 1'000'000;

// Reads and validates `path` against `flags`. InvalidArgument naming the file, line and key of
// the first problem: YAML syntax, an unknown top-level key, a flag no command in use accepts
// (or the scoped command lacks), a flag the sweep sets itself (metrics-json, trace), a bad range
// (missing or non-numeric from/to, step <= 0, times <= 1, from > to), an empty axis, zipped lists
// of unequal length, a name given twice, more than kMaxSweepPoints points; NotFound when the
// file cannot be read.
StatusOr<SweepSpec> ReadSweepSpec(const std::string& path, const FlagCatalog& flags);
// The same for spec text; `path` names it in messages.
StatusOr<SweepSpec> ParseSweepSpec(const std::string& text, const std::string& path,
                                   const FlagCatalog& flags);

// The step-time metric a command writes to --metrics-json and its unit in seconds
// (sim: median_step_time_s, place: predicted_step_ns, train and benchmark: ms_per_step_median);
// "" for commands without a default.
std::string DefaultStepTimeMetric(const std::string& command);
// Seconds per unit of a metric, read from its name: "..._ns" 1e-9, "..._us" 1e-6, "ms_..." or
// "..._ms" 1e-3, otherwise 1.
double MetricSecondsPerUnit(const std::string& metric);

}  // namespace fb::sweep
