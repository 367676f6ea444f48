#pragma once
// The runs of a sweep: the spec's grid expanded into points (one value of every axis), each
// point run by the simulated command, the real command or both, `repetitions` times.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sweep/sweep_spec.h"

namespace fb::sweep {

// One point of the grid: every setting (fixed, then axes and zipped members in spec order) as
// the spec names it ("placer", "sim.platform").
struct SweepPoint {
  int64_t index = 0;  // row-major over the spec's groups, the first group slowest
  std::vector<std::pair<std::string, std::string>> settings;
};

// One process to start: a point, a mode ("sim" or "real"), a command and its flags.
struct SweepRun {
  int64_t point = 0;
  int repetition = 0;
  std::string mode;                                           // "sim" | "real"
  std::string command;                                        // the flowbench subcommand
  std::vector<std::pair<std::string, std::string>> settings;  // the point's settings
  std::vector<std::string> args;  // after the binary: command, then --flag value ... (no
                                  // --metrics-json or --trace: the runner adds those)
  std::string hash;               // PointHash of mode, command, settings and commit
  // "<hash>-r<repetition>": the run's identity in the journal and its file names.
  std::string key() const { return hash + "-r" + std::to_string(repetition); }
};

// Every point of the grid, in index order.
std::vector<SweepPoint> ExpandGrid(const SweepSpec& spec);

// The command line of `point` for `command` run as `mode`: the point's settings that the
// command accepts (scoped "sim."/"real." names only for their mode), switches passed or left out.
std::vector<std::string> CommandArgs(const SweepPoint& point, const std::string& mode,
                                     const std::string& command, const FlagCatalog& flags);

// A 16-hex-digit FNV-1a 64 hash of the mode, the command, the point's settings (all of them,
// also those the command does not take, so that distinct points never share a key) and
// `commit`: equal for equal settings in any order, different for another build.
std::string PointHash(const std::string& mode, const std::string& command,
                      const std::vector<std::pair<std::string, std::string>>& settings,
                      const std::string& commit);

// The runs of the spec's mode, every repetition, ordered point by point (repetitions of a point
// together; in mode both the simulated run before the real one).
std::vector<SweepRun> PlanRuns(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                               const FlagCatalog& flags, const std::string& commit);

// The real runs `--validate K` adds to a simulated sweep: K points spread evenly over the grid
// (all of them when K >= the number of points), every repetition.
std::vector<SweepRun> PlanValidationRuns(const SweepSpec& spec,
                                         const std::vector<SweepPoint>& points, int64_t k,
                                         const FlagCatalog& flags, const std::string& commit);

// Runs i with i % size == rank: this process's share under mpirun (rank, size from
// OMPI_COMM_WORLD_RANK/SIZE or PMI_RANK/SIZE; 0 and 1 otherwise).
std::vector<SweepRun> RankShare(const std::vector<SweepRun>& runs, int rank, int size);
void RankFromEnvironment(int* rank, int* size);

}  // namespace fb::sweep
