// `flowbench sim-platform`: writes a generated SimGrid platform (sim/platform_generator.h).
//   flowbench sim-platform fat-tree:N:10gbe|ib OUT.xml      N nodes, one GPU each, fat tree
//   flowbench sim-platform node:G:pcie|nvlink OUT.xml       one machine, a CPU and G GPUs
//   flowbench sim-platform cpu:FLOPS:MEMBW OUT.xml          one CPU device
//   flowbench sim-platform mpi-node:ps=1,worker=3 OUT.xml   the ranks of an MPI job on this
//                                                           machine (CPUs as this_machine.xml)
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "sim/platform_generator.h"

namespace fb::apps {
namespace {

// This machine's CPU as calibrated in sim/platforms/this_machine.xml (docs/simulator.md).
const sim::DeviceClass kThisMachineCpu{"CPU", 14.5e9, 3.7e9, 1000, 0};

// "ps=1,worker=3" -> {(ps, 1), (worker, 3)}.
StatusOr<std::vector<std::pair<std::string, int>>> ParseJobs(const std::string& text) {
  std::vector<std::pair<std::string, int>> jobs;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("jobs must be like ps=1,worker=3, got '", text, "'");
    jobs.emplace_back(item.substr(0, eq), std::stoi(item.substr(eq + 1)));
    if (jobs.back().second < 1)
      return InvalidArgument("job '", jobs.back().first, "' needs at least one task, got '", text, "'");
  }
  return jobs;
}

Status GeneratePlatform(const std::string& spec, const std::string& out_path) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  StatusOr<std::string> xml = InvalidArgument(
      "platform spec must be fat-tree:N:10gbe|ib, node:G:pcie|nvlink, cpu:FLOPS:MEMBW or "
      "mpi-node:JOBS, got '",
      spec, "'");
  try {
    if (parts.size() == 3 && parts[0] == "fat-tree")
      xml = sim::FatTreeClusterXml(std::stoi(parts[1]), parts[2]);
    if (parts.size() == 3 && parts[0] == "node")
      xml = sim::MultiGpuNodeXml(std::stoi(parts[1]), parts[2]);
    if (parts.size() == 2 && parts[0] == "mpi-node") {
      ASSIGN_OR_RETURN(auto jobs, ParseJobs(parts[1]));
      xml = sim::MpiNodeXml(jobs, kThisMachineCpu);
    }
    if (parts.size() == 3 && parts[0] == "cpu")
      xml = sim::SingleCpuXml("cpu0", std::stod(parts[1]), std::stod(parts[2]), 1000);
  } catch (const std::exception&) {
    return InvalidArgument("platform spec '", spec, "': sizes must be numbers");
  }
  RETURN_IF_ERROR(xml.status());
  std::ofstream out(out_path);
  if (!(out << *xml)) return Internal("cannot write platform file '", out_path, "'");
  return Status::OK();
}

FB_REGISTER_COMMAND("sim-platform", [](CLI::App* app) {
  static std::string spec;
  static std::string out;
  auto* cmd = app->add_subcommand("sim-platform", "Generate a SimGrid platform XML");
  cmd->add_option("spec", spec, "fat-tree:N:10gbe|ib, node:G:pcie|nvlink, cpu:FLOPS:MEMBW or mpi-node:ps=1,worker=3")->required();
  cmd->add_option("out", out, "Output .xml")->required();
  cmd->callback([] {
    if (Status s = GeneratePlatform(spec, out); !s.ok()) Fail("sim-platform", s);
  });
});

}  // namespace
}  // namespace fb::apps
