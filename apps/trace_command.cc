// `flowbench trace`: inspect HDF5 traces (docs/trace-format.md).
//   flowbench trace summary FILE.h5 [--top N]
//   flowbench trace export --chrome FILE.h5 OUT.json [--gzip] [--start-ns NS] [--end-ns NS]
//                          [--step N]
#include <iostream>

#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "engine/trace/trace_chrome.h"
#include "engine/trace/trace_summary.h"

namespace fb::apps {
namespace {

struct TraceFlags {
  std::string trace_path, out_path;
  int top = 20;
  bool chrome = false;
  ChromeExportOptions chrome_options;
};

Status Summary(const TraceFlags& f) {
  ASSIGN_OR_RETURN(Trace trace, TraceReader::Open(f.trace_path));
  std::cout << trace.path << ": " << TraceModeName(trace.metadata.mode) << " trace, "
            << trace.events.size() << " events, " << trace.devices.size() << " devices, "
            << trace.steps.size() << " steps\n\n"
            << FormatTraceSummary(SummarizeTrace(trace), f.top);
  return Status::OK();
}

Status Export(const TraceFlags& f) {
  if (!f.chrome) return InvalidArgument("choose an export format: --chrome");
  ASSIGN_OR_RETURN(Trace trace, TraceReader::Open(f.trace_path));
  return WriteChromeTrace(trace, f.out_path, f.chrome_options);
}

FB_REGISTER_COMMAND("trace", [](CLI::App* app) {
  static TraceFlags flags;
  auto* cmd = app->add_subcommand("trace", "Summarise or export HDF5 traces");
  cmd->require_subcommand(1);
  auto* summary = cmd->add_subcommand("summary", "Top ops, device busy time and step times");
  summary->add_option("trace", flags.trace_path, "Trace file (.h5)")->required();
  summary->add_option("--top", flags.top, "Number of op types to list")
      ->check(PositiveCount(1'000'000))->capture_default_str();
  summary->callback([] {
    if (Status s = Summary(flags); !s.ok()) Fail("trace summary", s);
  });
  auto* exp = cmd->add_subcommand("export", "Export to Chrome trace-event JSON (Perfetto)");
  exp->add_flag("--chrome", flags.chrome, "Chrome trace-event JSON")->required();
  exp->add_option("trace", flags.trace_path, "Trace file (.h5)")->required();
  exp->add_option("out", flags.out_path, "Output .json (or .json.gz)")->required()
      ->check(OutputFileCheck());
  exp->add_flag("--gzip", flags.chrome_options.gzip, "gzip the output (implied by .gz)");
  exp->add_option("--start-ns", flags.chrome_options.start_ns,
                  "Window start, ns after the first event")
      ->check(IntRange(0, INT64_MAX));
  exp->add_option("--end-ns", flags.chrome_options.end_ns, "Window end, ns after the first event")
      ->check(IntRange(0, INT64_MAX));
  exp->add_option("--step", flags.chrome_options.step, "Only this step's events")
      ->check(IntRange(0, INT64_MAX));
  exp->callback([] {
    if (Status s = Export(flags); !s.ok()) Fail("trace export", s);
  });
});

}  // namespace
}  // namespace fb::apps
