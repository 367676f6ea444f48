// `flowbench sim-platform`: writes a generated SimGrid platform (sim/platform_generator.h).
//   flowbench sim-platform fat-tree:N:10gbe|ib OUT.xml      N nodes, one GPU each, fat tree
//   flowbench sim-platform node:G:pcie|nvlink OUT.xml       one machine, a CPU and G GPUs
//   flowbench sim-platform cpu:FLOPS:MEMBW OUT.xml          one CPU device
//   flowbench sim-platform mpi-node:ps=1,worker=3 OUT.xml   the ranks of an MPI job on this
//                                                           machine (CPUs as this_machine.xml)
//   flowbench sim-platform emulated:4:1gbit:50us[:star|two-level][:ps=1,worker=3] OUT.xml
//                                    the cluster of `scripts/cluster up 4 --bandwidth 1gbit ...`
//   flowbench sim-platform profile:FILE[+FILE][,threads=N] OUT.xml one CPU device calibrated
//                                              from `flowbench profile` files (merged)
//   flowbench sim-platform cpu-devices:4[:BASE.xml] OUT.xml the CPU devices of one process
//                                    (`train --devices cpu:4`), each as BASE's (this_machine.xml)
// mpi-node, emulated and cpu-devices describe devices that share this machine's cores
// (sim/core_sharing.h): --cores N|nproc (default nproc: the online cores); 0: a whole CPU each;
// --exec-threads T: the cores one execution of a device may use (default 1); --wait-core-weight W:
// a waiting device's weight in the sharing (default: sim::kMpiWaitCoreWeight for the MPI ranks of
// mpi-node and emulated, 0 for the devices of one process, cpu-devices).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <simgrid/s4u/Host.hpp>

#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "sim/core_sharing_platform.h"
#include "sim/emulated_cluster_platform.h"
#include "sim/platform_generator.h"
#include "sim/profile_calibration.h"
#include "sim/platform_validation.h"
#include "sim/simulator.h"

namespace fb::apps {
namespace {

// This machine's CPU as calibrated in sim/platforms/this_machine.xml from a profile
// (`sim-platform profile:FILE`, docs/simulator.md "Profiles").
const sim::DeviceClass kThisMachineCpu{"CPU", 40.0e9, 6.98e9, 442, 0};

// `text`, the whole of it, as an integer / a finite number > 0. InvalidArgument naming `what`
// otherwise (std::stoi would read "4x" as 4 and std::stod accepts "nan").
StatusOr<int> ParseInt(const std::string& text, const char* what) {
  errno = 0;
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE || v < std::numeric_limits<int>::min() ||
      v > std::numeric_limits<int>::max())
    return InvalidArgument(what, " must be an integer, got '", text, "'");
  return static_cast<int>(v);
}

StatusOr<double> ParseRate(const std::string& text, const char* what) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || !(v > 0))
    return InvalidArgument(what, " must be a finite number > 0, got '", text, "'");
  return v;
}

// "ps=1,worker=3" -> {(ps, 1), (worker, 3)}.
StatusOr<std::vector<std::pair<std::string, int>>> ParseJobs(const std::string& text) {
  std::vector<std::pair<std::string, int>> jobs;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("jobs must be like ps=1,worker=3, got '", text, "'");
    ASSIGN_OR_RETURN(int tasks, ParseInt(item.substr(eq + 1), "a task count"));
    for (const auto& job : jobs)
      if (job.first == item.substr(0, eq))
        return InvalidArgument("job '", job.first, "' is given twice in '", text, "'");
    jobs.emplace_back(item.substr(0, eq), tasks);
  }
  return jobs;  // names, counts and the total are checked by MpiNodeXml
}

// emulated:N:RATE:DELAY[:TOPOLOGY][:JOBS] (parts[0] == "emulated").
StatusOr<std::string> EmulatedXml(const std::vector<std::string>& parts,
                                  const sim::SharedCores& sharing) {
  if (parts.size() < 4 || parts.size() > 6)
    return InvalidArgument("expected emulated:N:RATE:DELAY[:star|two-level][:JOBS]");
  sim::EmulatedClusterSpec e;
  ASSIGN_OR_RETURN(e.hosts, ParseInt(parts[1], "the host count"));
  ASSIGN_OR_RETURN(e.rate_bits_per_s, sim::ParseTcRateBitsPerS(parts[2]));
  ASSIGN_OR_RETURN(e.delay_s, sim::ParseTcDelayS(parts[3]));
  for (size_t i = 4; i < parts.size(); ++i) {
    if (parts[i].find('=') != std::string::npos) {
      ASSIGN_OR_RETURN(e.jobs, ParseJobs(parts[i]));
    } else {
      e.topology = parts[i];
    }
  }
  e.sharing = sharing;
  return sim::EmulatedClusterXml(e, kThisMachineCpu);
}

// "profile:FILE[+FILE...][,threads=N]": the per-op roofline of sim/profile_calibration.h.
StatusOr<std::string> CalibratedXml(const std::string& spec) {
  std::string path = spec.substr(8);
  int threads = 1;
  if (const size_t comma = path.rfind(",threads="); comma != std::string::npos) {
    ASSIGN_OR_RETURN(threads, ParseInt(path.substr(comma + 9), "threads"));
    if (threads < 1) return InvalidArgument("threads must be >= 1, got ", threads);
    path = path.substr(0, comma);
  }
  // FILE may be several profiles of this host joined with '+' (sim::MergeProfiles).
  std::vector<std::pair<std::string, sim::Profile>> profiles;
  for (size_t start = 0; start <= path.size();) {
    size_t plus = path.find('+', start);
    if (plus == std::string::npos) plus = path.size();
    const std::string one = path.substr(start, plus - start);
    ASSIGN_OR_RETURN(sim::Profile p, sim::ReadProfile(one));
    profiles.emplace_back(one, std::move(p));
    start = plus + 1;
  }
  ASSIGN_OR_RETURN(sim::Profile profile, sim::MergeProfiles(profiles));
  ASSIGN_OR_RETURN(sim::CpuCalibration c, sim::CalibrateCpu(profile, threads, path));
  std::cout << "calibrated from " << path << " (" << c.configurations << " configurations, "
            << threads << " threads): " << c.flops_per_s << " FLOP/s, "
            << c.memory_bandwidth_bytes_per_s << " B/s, launch " << c.launch_overhead_ns
            << " ns (step scale " << c.step_scale << ")\n";
  return sim::CalibratedCpuXml(c, "profile:" + path + " (" + std::to_string(threads) +
                                      " threads)");
}

// cpu-devices:N[:BASE]: N copies of the one device of platform BASE (default this_machine.xml).
StatusOr<std::string> CpuDevicesXml(const std::vector<std::string>& parts,
                                    const sim::SharedCores& sharing) {
  if (parts.size() < 2 || parts.size() > 3) return InvalidArgument("expected cpu-devices:N[:BASE]");
  ASSIGN_OR_RETURN(int devices, ParseInt(parts[1], "the device count"));
  ASSIGN_OR_RETURN(std::string base,
                   sim::ResolvePlatformPath(parts.size() == 3 ? parts[2] : "this_machine.xml"));
  sim::Simulation sim;
  RETURN_IF_ERROR(sim.LoadPlatform(base));
  if (sim.devices().size() != 1)
    return InvalidArgument("platform file '", base, "' has ", sim.devices().size(),
                           " devices; cpu-devices copies a platform of one CPU device");
  const sim::SimDevice& d = sim.devices()[0];
  if (d.desc.type != "CPU")
    return InvalidArgument("platform file '", base, "': host '", d.host_name, "' is a ",
                           d.desc.type, " device; cpu-devices copies a CPU");
  std::map<std::string, std::string> props;
  if (const auto* p = d.host->get_properties()) props.insert(p->begin(), p->end());
  return sim::LocalCpuDevicesXml(devices, d.desc.peak_flops_per_s, props, sharing);
}

// `weight_given`: --wait-core-weight was on the command line (else cpu-devices writes none).
StatusOr<std::string> GenerateXml(const std::string& spec, const sim::SharedCores& sharing,
                                  bool weight_given) {
  if (spec.rfind("profile:", 0) == 0) return CalibratedXml(spec);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() == 3 && parts[0] == "fat-tree") {
    ASSIGN_OR_RETURN(int nodes, ParseInt(parts[1], "the node count"));
    return sim::FatTreeClusterXml(nodes, parts[2]);
  }
  if (parts.size() == 3 && parts[0] == "node") {
    ASSIGN_OR_RETURN(int gpus, ParseInt(parts[1], "the GPU count"));
    return sim::MultiGpuNodeXml(gpus, parts[2]);
  }
  if (parts.size() == 2 && parts[0] == "mpi-node") {
    ASSIGN_OR_RETURN(auto jobs, ParseJobs(parts[1]));
    return sim::MpiNodeXml(jobs, kThisMachineCpu, "shm", sharing);
  }
  if (parts[0] == "emulated") return EmulatedXml(parts, sharing);
  if (parts[0] == "cpu-devices") {
    sim::SharedCores one_process = sharing;  // no MPI progress unless asked for
    if (!weight_given) one_process.wait_core_weight = 0;
    return CpuDevicesXml(parts, one_process);
  }
  if (parts.size() == 3 && parts[0] == "cpu") {
    ASSIGN_OR_RETURN(double flops, ParseRate(parts[1], "FLOPS"));
    ASSIGN_OR_RETURN(double membw, ParseRate(parts[2], "MEMBW"));
    return sim::SingleCpuXml("cpu0", flops, membw, 1000);
  }
  return InvalidArgument(
      "expected fat-tree:N:10gbe|ib, node:G:pcie|nvlink, cpu:FLOPS:MEMBW, mpi-node:JOBS, "
      "emulated:N:RATE:DELAY[:star|two-level][:JOBS], cpu-devices:N[:BASE] or "
      "profile:FILE[,threads=N]");
}

Status GeneratePlatform(const std::string& spec, const std::string& out_path,
                        const sim::SharedCores& sharing, bool weight_given) {
  StatusOr<std::string> xml = GenerateXml(spec, sharing, weight_given);
  if (!xml.ok())
    return Status(xml.status().code(), "platform spec '" + spec + "': " + xml.status().message());
  // What is written must load: the checks `flowbench sim` makes before SimGrid reads it.
  RETURN_IF_ERROR(sim::ValidatePlatformXml(*xml, out_path));
  std::ofstream out(out_path);
  if (!(out << *xml)) return Internal("cannot write platform file '", out_path, "'");
  return Status::OK();
}

// --cores and --exec-threads shape the shared cores of mpi-node, emulated and cpu-devices
// platforms; the others have none, and the flags would be ignored without a word.
Status CheckSharingFlags(const std::string& spec, bool given) {
  if (!given || spec.starts_with("mpi-node:") || spec.starts_with("emulated:") ||
      spec.starts_with("cpu-devices:"))
    return Status::OK();
  return InvalidArgument("--cores, --exec-threads and --wait-core-weight apply to mpi-node, emulated and cpu-devices "
                         "platforms, not '", spec, "'");
}

FB_REGISTER_COMMAND("sim-platform", [](CLI::App* app) {
  static std::string spec;
  static std::string out;
  static std::string cores = "nproc";
  static int exec_threads = 1;
  static double wait_weight = sim::kMpiWaitCoreWeight;
  auto* cmd = app->add_subcommand("sim-platform", "Generate a SimGrid platform XML");
  cmd->add_option("spec", spec, "fat-tree:N:10gbe|ib, node:G:pcie|nvlink, cpu:FLOPS:MEMBW, mpi-node:ps=1,worker=3, "
                 "emulated:N:RATE:DELAY[:star|two-level][:JOBS] (scripts/cluster's network) or "
                 "profile:FILE[+FILE...][,threads=N] or cpu-devices:N[:BASE.xml]")->required();
  cmd->add_option("out", out, "Output .xml")->required()->check(OutputFileCheck());
  auto* cores_flag = cmd->add_option("--cores", cores,
                  "mpi-node, emulated, cpu-devices: the devices share N cores of one machine "
                  "(nproc, the default: this machine's online cores; 0: a whole CPU each)");
  auto* exec_threads_flag = cmd->add_option("--exec-threads", exec_threads,
                  "with --cores: the cores one execution of a device may use (its threads; "
                  "default 1)")
      ->check(IntRange(1, sim::kMaxSharedCores));
  auto* weight = cmd->add_option(
      "--wait-core-weight", wait_weight,
      "with --cores: a waiting device's weight in the sharing of the cores against 1 for a "
      "computing thread, in [0, 8] (its MPI progress polling; default " +
          std::to_string(sim::kMpiWaitCoreWeight).substr(0, 4) +
          ", measured, for mpi-node and emulated; 0 for cpu-devices)")
      ->check(FiniteRange(0, sim::kMaxWaitCoreWeight));
  cmd->callback([cores_flag, exec_threads_flag, weight] {
    Status s = CheckSharingFlags(
        spec, cores_flag->count() + exec_threads_flag->count() + weight->count() > 0);
    StatusOr<int> n = cores == "nproc" ? sim::MachineCores() : ParseInt(cores, "--cores");
    const sim::SharedCores sharing{n.ok() ? *n : 0, exec_threads, wait_weight};
    if (s.ok()) s = n.ok() ? sim::CheckSharedCores(sharing, "--cores") : n.status();
    if (s.ok()) s = GeneratePlatform(spec, out, sharing, weight->count() > 0);
    if (!s.ok()) Fail("sim-platform", s);
  });
});

}  // namespace
}  // namespace fb::apps
