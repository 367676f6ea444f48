// `flowbench sweep`: runs an experiment grid from a YAML spec (docs/sweeps.md), each run its own
// `flowbench <command>` process; `flowbench sweep export` turns its results table into CSV.
//   flowbench sweep SPEC.yaml [-j N] [--real-jobs N] [--out DIR] [--resume] [--dry-run]
//                   [--validate K]
//   mpirun -np 8 flowbench sweep SPEC.yaml --out DIR      (runs spread over the ranks)
//   flowbench sweep export DIR/results.h5 --csv OUT.csv
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "sweep/build_commit.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_validation.h"

namespace fb::apps {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void OnStopSignal(int) { g_stop.store(true); }

struct SweepFlags {
  std::string spec, out;
  int jobs = 1, real_jobs = 1;
  int64_t validate = 0;
  bool resume = false, dry_run = false;
  std::string export_in, export_csv;
};

// The long flags of every subcommand of `root` but sweep itself, and whether each takes a value.
sweep::FlagCatalog Catalog(CLI::App* root) {
  sweep::FlagCatalog catalog;
  for (CLI::App* sub : root->get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == "sweep") continue;
    auto& flags = catalog.commands[sub->get_name()];
    for (const CLI::Option* opt : sub->get_options()) {
      for (const std::string& name : opt->get_lnames())
        if (name != "help") flags[name] = opt->get_type_size() != 0;
    }
  }
  return catalog;
}

Status RunSweepCommand(const SweepFlags& f, CLI::App* root) {
  if (f.spec.empty())
    return InvalidArgument("give a sweep spec: flowbench sweep SPEC.yaml (docs/sweeps.md)");
  const sweep::FlagCatalog catalog = Catalog(root);
  ASSIGN_OR_RETURN(sweep::SweepSpec spec, sweep::ReadSweepSpec(f.spec, catalog));
  sweep::SweepOptions o;
  o.out_dir = f.out;
  std::error_code ec;
  o.binary = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return Internal("cannot read /proc/self/exe: ", ec.message());
  o.jobs = f.jobs;
  o.real_jobs = f.real_jobs;
  o.resume = f.resume;
  o.dry_run = f.dry_run;
  o.validate = f.validate;
  o.commit = sweep::BuildCommit();
  o.tty = isatty(fileno(stderr)) != 0;
  o.stop = &g_stop;
  auto old_int = std::signal(SIGINT, OnStopSignal);
  auto old_term = std::signal(SIGTERM, OnStopSignal);
  StatusOr<sweep::SweepSummary> r = sweep::RunSweep(spec, catalog, o);
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  RETURN_IF_ERROR(r.status());
  if (f.dry_run) return Status::OK();
  std::cout << "sweep " << spec.name << ": " << r->finished << " runs, " << r->failed << " failed, "
            << r->skipped << " skipped (done before); results: " << r->results_path << "\n";
  for (const std::string& f : r->failures) std::cout << "  failed: " << f << "\n";
  if (r->failed > r->failures.size())
    std::cout << "  ... " << r->failed - r->failures.size() << " more\n";
  if (r->failed)
    std::cout << "failed runs: status and error columns of the results, logs in the logs/ folder\n";
  if (!r->validation.is_null()) std::cout << sweep::FormatValidation(r->validation) << "\n";
  // A grid where nothing ran through measured nothing: a script must not read it as success.
  if (r->finished > 0 && r->failed == r->finished)
    return Aborted("every run of sweep '", spec.name, "' failed (", r->failed, " of ",
                   r->finished, "): nothing was measured; the errors are in ", r->results_path,
                   " and the logs/ folder");
  return Status::OK();
}

Status ExportCommand(const SweepFlags& f) {
  ASSIGN_OR_RETURN(sweep::ResultsTable t, sweep::ReadResultsTable(f.export_in));
  RETURN_IF_ERROR(sweep::WriteResultsCsv(t, f.export_csv));
  std::cout << t.rows() << " rows, " << t.columns.size() << " columns -> " << f.export_csv << "\n";
  return Status::OK();
}

FB_REGISTER_COMMAND("sweep", [](CLI::App* app) {
  static SweepFlags f;
  auto* cmd =
      app->add_subcommand("sweep", "Run an experiment grid from a YAML spec (docs/sweeps.md)");
  cmd->add_option("spec", f.spec, "Sweep spec (YAML)");
  cmd->add_option("-j,--jobs", f.jobs, "Simulated runs at a time")
      ->check(PositiveCount(kMaxThreads))
      ->capture_default_str();
  cmd->add_option("--real-jobs", f.real_jobs, "Real runs at a time (they measure time: default 1)")
      ->check(PositiveCount(kMaxThreads))
      ->capture_default_str();
  cmd->add_option("--out", f.out, "Output directory (default: sweeps/<name>)");
  cmd->add_flag("--resume", f.resume, "Skip runs done in --out (same settings and commit)");
  cmd->add_flag("--dry-run", f.dry_run, "Print the runs and exit");
  cmd->add_option("--validate", f.validate,
                  "Also run K simulated points for real; report error and Kendall tau")
      ->check(IntRange(0, 1'000'000));
  auto* exp = cmd->add_subcommand("export", "Write a sweep's results.h5 as CSV");
  exp->add_option("results", f.export_in, "results.h5 of a sweep")->required();
  exp->add_option("--csv", f.export_csv, "CSV file to write")->required()->check(OutputFileCheck());
  exp->callback([] {
    if (Status s = ExportCommand(f); !s.ok()) Fail("sweep export", s);
  });
  cmd->callback([cmd, app] {
    if (cmd->got_subcommand("export")) return;
    if (Status s = RunSweepCommand(f, app); !s.ok()) Fail("sweep", s);
  });
});

}  // namespace
}  // namespace fb::apps
