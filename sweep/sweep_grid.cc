#include "sweep/sweep_grid.h"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

namespace fb::sweep {

std::vector<SweepPoint> ExpandGrid(const SweepSpec& spec) {
  const uint64_t n = spec.NumPoints();
  std::vector<SweepPoint> points;
  if (n > kMaxSweepPoints) return points;
  points.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    SweepPoint p;
    p.index = static_cast<int64_t>(i);
    p.settings = spec.fixed;
    // Row-major: the last group varies fastest.
    uint64_t rest = i;
    std::vector<size_t> at(spec.groups.size());
    for (size_t g = spec.groups.size(); g-- > 0;) {
      at[g] = rest % spec.groups[g].size();
      rest /= spec.groups[g].size();
    }
    for (size_t g = 0; g < spec.groups.size(); ++g)
      for (const AxisSpec& a : spec.groups[g].members)
        p.settings.emplace_back(a.name, a.values[at[g]]);
    points.push_back(std::move(p));
  }
  return points;
}

std::vector<std::string> CommandArgs(const SweepPoint& point, const std::string& mode,
                                     const std::string& command, const FlagCatalog& flags) {
  std::vector<std::string> args = {command};
  for (const auto& [name, value] : point.settings) {
    std::string flag = name;
    if (name.rfind("sim.", 0) == 0 || name.rfind("real.", 0) == 0) {
      const size_t dot = name.find('.');
      if (name.substr(0, dot) != mode) continue;
      flag = name.substr(dot + 1);
    }
    if (!flags.Has(command, flag)) continue;
    if (!flags.TakesValue(command, flag)) {
      if (value == "true" || value == "on" || value == "yes" || value == "1")
        args.push_back("--" + flag);
      continue;
    }
    args.push_back("--" + flag);
    args.push_back(value);
  }
  return args;
}

std::string PointHash(const std::string& mode, const std::string& command,
                      const std::vector<std::pair<std::string, std::string>>& settings,
                      const std::string& commit) {
  std::vector<std::pair<std::string, std::string>> sorted = settings;
  std::sort(sorted.begin(), sorted.end());
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0x1e) * 1099511628211ull;  // a separator no flag or value holds
  };
  mix(mode);
  mix(command);
  for (const auto& [k, v] : sorted) {
    mix(k);
    mix(v);
  }
  mix(commit);
  return fmt::format("{:016x}", h);
}

namespace {

SweepRun MakeRun(const SweepPoint& p, int rep, const std::string& mode, const std::string& command,
                 const FlagCatalog& flags, const std::string& commit) {
  SweepRun r;
  r.point = p.index;
  r.repetition = rep;
  r.mode = mode;
  r.command = command;
  r.settings = p.settings;
  r.args = CommandArgs(p, mode, command, flags);
  r.hash = PointHash(mode, command, p.settings, commit);
  return r;
}

}  // namespace

std::vector<SweepRun> PlanRuns(const SweepSpec& spec, const std::vector<SweepPoint>& points,
                               const FlagCatalog& flags, const std::string& commit) {
  std::vector<SweepRun> runs;
  const bool sim = spec.mode != SweepMode::kReal, real = spec.mode != SweepMode::kSim;
  for (const SweepPoint& p : points) {
    for (int rep = 0; rep < spec.repetitions; ++rep)
      if (sim) runs.push_back(MakeRun(p, rep, "sim", spec.sim_command, flags, commit));
    for (int rep = 0; rep < spec.repetitions; ++rep)
      if (real) runs.push_back(MakeRun(p, rep, "real", spec.real_command, flags, commit));
  }
  return runs;
}

std::vector<SweepRun> PlanValidationRuns(const SweepSpec& spec,
                                         const std::vector<SweepPoint>& points, int64_t k,
                                         const FlagCatalog& flags, const std::string& commit) {
  std::vector<SweepRun> runs;
  const int64_t n = static_cast<int64_t>(points.size());
  if (k <= 0 || n == 0) return runs;
  k = std::min(k, n);
  for (int64_t i = 0; i < k; ++i) {
    // Evenly spread: the first and (for k > 1) the last point included.
    const int64_t at = k == 1 ? 0 : i * (n - 1) / (k - 1);
    for (int rep = 0; rep < spec.repetitions; ++rep)
      runs.push_back(
          MakeRun(points[static_cast<size_t>(at)], rep, "real", spec.real_command, flags, commit));
  }
  return runs;
}

std::vector<SweepRun> RankShare(const std::vector<SweepRun>& runs, int rank, int size) {
  std::vector<SweepRun> mine;
  for (size_t i = 0; i < runs.size(); ++i)
    if (size <= 1 || static_cast<int>(i % static_cast<size_t>(size)) == rank)
      mine.push_back(runs[i]);
  return mine;
}

void RankFromEnvironment(int* rank, int* size) {
  *rank = 0;
  *size = 1;
  for (auto [r, s] : {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                      std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    const char* rv = std::getenv(r);
    const char* sv = std::getenv(s);
    if (!rv || !sv) continue;
    const int ri = std::atoi(rv), si = std::atoi(sv);
    if (si >= 1 && ri >= 0 && ri < si) {
      *rank = ri;
      *size = si;
      return;
    }
  }
}

}  // namespace fb::sweep
