#include "sweep/sweep_runner.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sweep/process_pool.h"
#include "sweep/sweep_grid.h"
#include "sweep/sweep_journal.h"
#include "sweep/sweep_progress.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_validation.h"

namespace fb::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Status RebuildResults(const SweepSpec& spec, const std::string& out_dir,
                      const std::string& commit) {
  ASSIGN_OR_RETURN(std::vector<SweepRow> rows, ReadJournals(out_dir));
  ResultsTable t = BuildResultsTable(rows, spec.name, spec.path, spec.text, commit);
  return WriteResultsTable(t, (fs::path(out_dir) / "results.h5").string());
}

namespace {

// The results table is rewritten from the journals at most every 2 s, and spends at most a tenth
// of the sweep's time on it (a table of a million rows takes seconds to rewrite).
constexpr double kRebuildEvery_s = 2.0;
constexpr double kRebuildShare = 0.1;

struct Context {
  const SweepSpec& spec;
  const FlagCatalog& flags;
  const SweepOptions& o;
  std::string out, journal, host;
  int rank = 0, size = 1;
  Clock::time_point last_rebuild = Clock::now();
  double rebuild_s = 0;  // how long the last rewrite took
  size_t finished = 0, failed = 0, total = 0;
  std::vector<std::string> failures;  // SweepSummary::failures
};

constexpr size_t kFailuresShown = 5;

// "point 3 rep 0 sim (exit 105): <the last line of its stderr that says something>" (CLI11's
// closing "Run with --help for more information." skipped).
std::string DescribeFailure(const SweepRow& row) {
  std::string last;
  std::istringstream lines(row.error);
  for (std::string line; std::getline(lines, line);)
    if (line.find_first_not_of(" \t\r") != std::string::npos &&
        line.rfind("Run with --help", 0) != 0)
      last = line;
  return fmt::format("point {} rep {} {} ({}){}{}", row.point, row.repetition, row.mode, row.status,
                     last.empty() ? "" : ": ", last);
}

// Rewrites OUT/results.h5 when the last rewrite is old enough (kRebuildEvery_s, kRebuildShare);
// errors are ignored here (the journal holds every row, the final rewrite reports them).
void MaybeRebuild(Context* c) {
  const double wait_s = std::max(kRebuildEvery_s, c->rebuild_s / kRebuildShare);
  if (Clock::now() - c->last_rebuild < std::chrono::duration<double>(wait_s)) return;
  const Clock::time_point start = Clock::now();
  (void)RebuildResults(c->spec, c->out, c->o.commit);
  c->last_rebuild = Clock::now();
  c->rebuild_s = std::chrono::duration<double>(c->last_rebuild - start).count();
}

std::string Quote(const std::string& a) {
  if (!a.empty() && a.find_first_of(" \t\"'\\$`") == std::string::npos) return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `name` itself when it holds a '/', else its first match on PATH.
StatusOr<std::string> FindProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const fs::path p = fs::path(dirs.substr(start, end - start)) / name;
    if (access(p.c_str(), X_OK) == 0) return p.string();
    start = end + 1;
  }
  return NotFound("sweep launcher '", name, "' is not on PATH");
}

std::string RunFile(const Context& c, const char* dir, const SweepRun& r, const char* ext) {
  return (fs::path(c.out) / dir / (r.key() + ext)).string();
}

StatusOr<ProcessSpec> MakeProcess(const Context& c, const SweepRun& r) {
  ProcessSpec p;
  if (r.mode == "real")
    for (size_t i = 0; i < c.spec.launcher.size(); ++i) {
      ASSIGN_OR_RETURN(std::string a,
                       i == 0 ? FindProgram(c.spec.launcher[i]) : c.spec.launcher[i]);
      p.argv.push_back(a);
    }
  p.argv.push_back(c.o.binary);
  p.argv.insert(p.argv.end(), r.args.begin(), r.args.end());
  p.argv.push_back("--metrics-json");
  p.argv.push_back(RunFile(c, "metrics", r, ".json"));
  if (c.spec.trace && c.flags.Has(r.command, "trace")) {
    p.argv.push_back("--trace");
    p.argv.push_back(RunFile(c, "traces", r, ".h5"));
  }
  p.stdout_path = RunFile(c, "logs", r, ".out");
  p.stderr_path = RunFile(c, "logs", r, ".err");
  p.timeout_s = c.spec.timeout_s;
  if (c.size > 1) p.env = EnvironmentWithoutMpiRank();
  return p;
}

SweepRow MakeRow(const Context& c, const SweepRun& r, const ProcessSpec& p,
                 const ProcessResult& res) {
  SweepRow row;
  row.point = r.point;
  row.repetition = r.repetition;
  row.mode = r.mode;
  row.command = r.command;
  row.hash = r.hash;
  row.settings = r.settings;
  row.exit_status = res.signal ? -1 : res.exit_status;
  row.signal = res.signal;
  row.status = res.Describe();
  row.wall_s = res.wall_s;
  row.start_time = res.start_time;
  row.commit = c.o.commit;
  row.host = c.host;
  if (c.spec.trace && c.flags.Has(r.command, "trace") && fs::exists(RunFile(c, "traces", r, ".h5")))
    row.trace = RunFile(c, "traces", r, ".h5");
  if (!res.ok()) row.error = res.stderr_tail;
  for (const std::string& a : p.argv)
    row.command_line += (row.command_line.empty() ? "" : " ") + Quote(a);
  std::ifstream in(RunFile(c, "metrics", r, ".json"));
  if (in) {
    nlohmann::json m = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!m.is_discarded()) row.metrics = FlattenMetrics(m);
  }
  return row;
}

Status RunPhase(Context* c, const std::vector<SweepRun>& runs, int jobs, SweepProgress* progress) {
  std::vector<ProcessSpec> procs;
  for (const SweepRun& r : runs) {
    ASSIGN_OR_RETURN(ProcessSpec p, MakeProcess(*c, r));
    std::error_code ec;
    fs::remove(RunFile(*c, "metrics", r, ".json"), ec);  // a failed retry must not read old metrics
    procs.push_back(std::move(p));
  }
  size_t running = 0;
  Status append = Status::OK();
  auto done = [&](size_t i, const ProcessResult& res) {
    SweepRow row = MakeRow(*c, runs[i], procs[i], res);
    if (Status s = AppendRow(c->journal, row); !s.ok() && append.ok()) append = s;
    ++c->finished;
    if (!row.ok() && ++c->failed <= kFailuresShown) c->failures.push_back(DescribeFailure(row));
    MaybeRebuild(c);  // best effort: the journal has the row
    progress->Update(c->finished, c->failed, running, /*force=*/false);
  };
  auto tick = [&](size_t now_running) {
    running = now_running;
    progress->Update(c->finished, c->failed, running);
  };
  Status s = RunProcesses(procs, jobs, done, tick, c->o.stop);
  RETURN_IF_ERROR(append);
  return s;
}

void PrintDryRun(const SweepOptions& o, const std::vector<SweepRun>& runs) {
  if (!o.report) return;
  for (const SweepRun& r : runs) {
    std::string cmd = "flowbench";
    for (const std::string& a : r.args) cmd += " " + Quote(a);
    std::fprintf(o.report, "point %lld rep %d %-4s %s  %s\n", static_cast<long long>(r.point),
                 r.repetition, r.mode.c_str(), r.hash.c_str(), cmd.c_str());
  }
  std::fprintf(o.report, "%zu runs\n", runs.size());
}

std::string LaunchId() {
  for (const char* v : {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", "PMI_JOBID"})
    if (const char* id = std::getenv(v)) return id;
  return std::to_string(getppid());
}

std::string MarkerPath(const Context& c, int rank) {
  return (fs::path(c.out) / (".done.rank" + std::to_string(rank))).string();
}

// Rank 0 waits until every other rank of this launch wrote its end marker.
Status WaitForRanks(Context* c) {
  const std::string id = LaunchId();
  if (c->rank != 0) {
    std::ofstream(MarkerPath(*c, c->rank)) << id;
    return Status::OK();
  }
  for (int r = 1; r < c->size; ++r) {
    for (;;) {
      std::ifstream in(MarkerPath(*c, r));
      std::string got;
      if (in && std::getline(in, got) && got == id) break;
      if (c->o.stop && c->o.stop->load())
        return Cancelled("sweep interrupted while waiting for rank ", r);
      MaybeRebuild(c);
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  return Status::OK();
}

}  // namespace

namespace {

// --resume into the directory of another sweep appended this one's runs to its journal and
// rewrote its table under this sweep's name. The results file names the sweep it holds (an
// unreadable one is left to the journal, which the table is rebuilt from).
Status CheckSameSweep(const Context& c) {
  const std::string results = (fs::path(c.out) / "results.h5").string();
  std::error_code ec;
  if (!fs::exists(results, ec)) return Status::OK();
  StatusOr<ResultsTable> held = ReadResultsTable(results);
  if (!held.ok() || held->name == c.spec.name) return Status::OK();
  return FailedPrecondition("--resume: sweep output directory '", c.out, "' holds sweep '",
                            held->name, "' (", held->spec_path, "), not '", c.spec.name, "' (",
                            c.spec.path, "): give this sweep its own --out");
}

Status PrepareOutDir(Context* c) {
  std::error_code ec;
  for (const char* sub : {"", "metrics", "logs", "traces"}) {
    if (std::string(sub) == "traces" && !c->spec.trace) continue;
    fs::create_directories(fs::path(c->out) / sub, ec);
    if (ec)
      return Internal("cannot create sweep output directory '", (fs::path(c->out) / sub).string(),
                      "': ", ec.message());
  }
  c->journal = JournalPath(c->out, c->rank);
  if (!c->o.resume && fs::exists(c->journal))
    return FailedPrecondition("sweep output directory '", c->out, "' already holds a sweep (",
                              c->journal, "): pass --resume to continue it or --out for a new one");
  if (c->o.resume) RETURN_IF_ERROR(CheckSameSweep(*c));
  fs::remove(MarkerPath(*c, c->rank), ec);
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) == 0) c->host = host;
  return Status::OK();
}

// The runs not yet done (--resume: a successful row in any rank's journal).
StatusOr<std::vector<SweepRun>> Pending(const Context& c, const std::vector<SweepRun>& runs) {
  if (!c.o.resume) return runs;
  std::set<std::string> done;
  StatusOr<std::vector<SweepRow>> rows = ReadJournals(c.out);
  if (rows.ok())
    for (const SweepRow& r : *rows)
      if (r.ok()) done.insert(r.mode + "/" + r.key());
  std::vector<SweepRun> pending;
  for (const SweepRun& r : runs)
    if (!done.count(r.mode + "/" + r.key())) pending.push_back(r);
  return pending;
}

StatusOr<nlohmann::json> Validate(const Context& c) {
  ASSIGN_OR_RETURN(std::vector<SweepRow> rows, ReadJournals(c.out));
  nlohmann::json report = ValidationReport(rows, c.spec.sim_step_metric, c.spec.real_step_metric);
  const std::string path = (fs::path(c.out) / "validation.json").string();
  std::ofstream out(path);
  if (!(out << report.dump(2) << "\n")) return Internal("cannot write '", path, "'");
  return report;
}

}  // namespace

StatusOr<SweepSummary> RunSweep(const SweepSpec& spec, const FlagCatalog& flags,
                                const SweepOptions& o) {
  const bool compare = o.validate > 0 || spec.mode == SweepMode::kBoth;
  if (o.validate > 0 && spec.mode == SweepMode::kReal)
    return InvalidArgument("--validate runs simulated points for real: ", spec.path,
                           " has mode real");
  if (compare && (spec.sim_step_metric.empty() || spec.real_step_metric.empty()))
    return InvalidArgument(spec.path, ": no step-time metric known for `flowbench ",
                           spec.sim_step_metric.empty() ? spec.sim_command : spec.real_command,
                           "`: set step_time_metric: {sim: NAME, real: NAME}");
  const std::vector<SweepPoint> points = ExpandGrid(spec);
  std::vector<SweepRun> runs = PlanRuns(spec, points, flags, o.commit);
  if (o.validate > 0 && spec.mode == SweepMode::kSim) {
    std::vector<SweepRun> v = PlanValidationRuns(spec, points, o.validate, flags, o.commit);
    runs.insert(runs.end(), v.begin(), v.end());
  }
  Context c{spec, flags, o};
  RankFromEnvironment(&c.rank, &c.size);
  runs = RankShare(runs, c.rank, c.size);
  c.out = fs::absolute(o.out_dir.empty() ? fs::path("sweeps") / spec.name : fs::path(o.out_dir))
              .lexically_normal()
              .string();
  SweepSummary summary;
  summary.planned = runs.size();
  summary.results_path = (fs::path(c.out) / "results.h5").string();
  if (o.dry_run) {
    PrintDryRun(o, runs);
    return summary;
  }
  if (access(o.binary.c_str(), X_OK) != 0)
    return NotFound("flowbench binary '", o.binary, "' is not executable");
  RETURN_IF_ERROR(PrepareOutDir(&c));
  ASSIGN_OR_RETURN(std::vector<SweepRun> pending, Pending(c, runs));
  summary.skipped = runs.size() - pending.size();
  std::vector<SweepRun> sim, real;
  for (SweepRun& r : pending) (r.mode == "sim" ? sim : real).push_back(std::move(r));
  c.total = pending.size();
  SweepProgress progress(o.progress, o.tty, c.total);
  Status s = RunPhase(&c, sim, o.jobs, &progress);
  if (s.ok()) s = RunPhase(&c, real, o.real_jobs, &progress);
  progress.Update(c.finished, c.failed, 0, /*force=*/true);
  progress.Finish();
  if (s.ok() && c.size > 1) s = WaitForRanks(&c);
  summary.finished = c.finished;
  summary.failed = c.failed;
  summary.failures = c.failures;
  if (c.rank == 0 || !s.ok()) RETURN_IF_ERROR(RebuildResults(spec, c.out, o.commit));
  RETURN_IF_ERROR(s);
  if (compare && c.rank == 0) {
    ASSIGN_OR_RETURN(summary.validation, Validate(c));
  }
  return summary;
}

}  // namespace fb::sweep
