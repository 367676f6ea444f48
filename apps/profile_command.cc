// `flowbench profile`: measures this host for the simulator (sim/profile_recorder.h) and writes
// one HDF5 profile (sim/profile.h, docs/simulator.md "Profiles").
//   flowbench profile --out profiles/HOST.h5 [--models lenet,mlp] [--batch-sizes 16,64,256]
//                     [--threads 1,2] [--steps 20] [--trace-steps 10] [--warmup-steps 5]
//                     [--devices cpu:1|gpu:1] [--mode forward|forward-backward|train]
//   flowbench profile --out profiles/HOST.h5 --transfers-only   (re-measure the transfer costs)
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "kernels/cpu/matmul.h"
#include "sim/profile_recorder.h"
#include "sim/transfer_cost_probe.h"

namespace fb::apps {
namespace {

struct ProfileFlags {
  sim::ProfileOptions options;
  std::string out;
  bool transfers_only = false;
};

std::string Now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// --transfers-only: the transfer probe again (sim/transfer_cost_probe.h) into an existing
// profile, whose kernel points and other executor costs stay.
Status RemeasureTransfers(const ProfileFlags& f) {
  ASSIGN_OR_RETURN(sim::Profile p, sim::ReadProfile(f.out));
  RETURN_IF_ERROR(sim::RemeasureTransferCosts(&p, [](const std::string& line) {
    std::cout << line << std::endl;
  }));
  p.command_line += " (transfers: ";
  for (const std::string& a : ProcessArgs()) p.command_line += a + " ";
  p.command_line += Now() + ")";
  RETURN_IF_ERROR(sim::WriteProfile(f.out, p));
  std::cout << "profile: " << f.out << " (transfer costs re-measured)\n";
  return Status::OK();
}

Status RunProfile(const ProfileFlags& f) {
  if (f.transfers_only) return RemeasureTransfers(f);
  const auto start = std::chrono::steady_clock::now();
  SetBlasThreads(1);  // as `flowbench benchmark` by default: the executor's threads only
  sim::ProfileOptions options = f.options;
  std::error_code self_ec;
  options.benchmark_binary = std::filesystem::read_symlink("/proc/self/exe", self_ec).string();
  if (self_ec) return Internal("profile: cannot find this binary (/proc/self/exe): ",
                               self_ec.message());
  ASSIGN_OR_RETURN(sim::Profile p, sim::RecordProfile(options, [](const std::string& line) {
    std::cout << line << std::endl;
  }));
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  p.host = host;
  if (p.device_type == "CPU") p.device = host;
  p.created = Now();
  for (const std::string& a : ProcessArgs())
    p.command_line += (p.command_line.empty() ? "" : " ") + a;
  const std::filesystem::path dir = std::filesystem::path(f.out).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  RETURN_IF_ERROR(sim::WriteProfile(f.out, p));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "profile: " << f.out << " (" << p.device_type << " '" << p.device << "', "
            << p.mode << "; " << p.points.size() << " points, " << p.steps.size()
            << " configurations, " << s << " s)\n";
  return Status::OK();
}

FB_REGISTER_COMMAND("profile", [](CLI::App* app) {
  static ProfileFlags f;
  auto* cmd = app->add_subcommand(
      "profile", "Measure this host's kernels and executor for the simulator (docs/simulator.md)");
  cmd->add_option("--out", f.out, "Output HDF5 profile, e.g. profiles/HOST.h5")->required()
      ->check(OutputFileCheck());
  cmd->add_option("--models", f.options.models, "Models to profile (experiments/models)")
      ->check(ModelCheck())->delimiter(',')->capture_default_str();
  cmd->add_option("--batch-sizes", f.options.batch_sizes, "Batch sizes")
      ->check(PositiveCount(kMaxBatchSize))->delimiter(',')->capture_default_str();
  cmd->add_option("--threads", f.options.threads, "CPU thread counts")
      ->check(PositiveCount(1024))->delimiter(',')->capture_default_str();
  cmd->add_option("--steps", f.options.timed_steps, "Untraced steps timed per configuration")
      ->check(PositiveCount(100000))->capture_default_str();
  cmd->add_option("--trace-steps", f.options.traced_steps, "Traced steps per configuration")
      ->check(PositiveCount(100000))->capture_default_str();
  cmd->add_option("--devices", f.options.devices,
                  "cpu:1 (this host's CPU) or gpu:1 (the model on the GPU, as flowbench benchmark "
                  "--devices gpu:1; the profile records the GPU's name)")
      ->check(DevicesCheck())->capture_default_str();
  cmd->add_option("--mode", f.options.mode,
                  "Step profiled, as flowbench benchmark --mode: forward, forward-backward or train")
      ->check(CLI::IsMember({"forward", "forward-backward", "train"}))->capture_default_str();
  cmd->add_option("--warmup-steps", f.options.warmup_steps, "Warm-up steps per configuration")
      ->check(IntRange(0, 100000))->capture_default_str();
  cmd->add_flag("--transfers-only", f.transfers_only,
               "Re-measure only the transfer and compression costs (sim/transfer_cost_probe.h) "
               "into the existing --out profile, keeping its kernel points");
  cmd->callback([] {
    if (Status s = RunProfile(f); !s.ok()) Fail("profile", s);
  });
});

}  // namespace
}  // namespace fb::apps
