// `flowbench sim-platform`: writes a generated SimGrid platform (sim/platform_generator.h).
//   flowbench sim-platform fat-tree:N:10gbe|ib OUT.xml      N nodes, one GPU each, fat tree
//   flowbench sim-platform node:G:pcie|nvlink OUT.xml       one machine, a CPU and G GPUs
//   flowbench sim-platform cpu:FLOPS:MEMBW OUT.xml          one CPU device
#include <fstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "sim/platform_generator.h"

namespace fb::apps {
namespace {

Status GeneratePlatform(const std::string& spec, const std::string& out_path) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  StatusOr<std::string> xml = InvalidArgument(
      "platform spec must be fat-tree:N:10gbe|ib, node:G:pcie|nvlink or cpu:FLOPS:MEMBW, got '",
      spec, "'");
  try {
    if (parts.size() == 3 && parts[0] == "fat-tree")
      xml = sim::FatTreeClusterXml(std::stoi(parts[1]), parts[2]);
    if (parts.size() == 3 && parts[0] == "node")
      xml = sim::MultiGpuNodeXml(std::stoi(parts[1]), parts[2]);
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
  cmd->add_option("spec", spec, "fat-tree:N:10gbe|ib, node:G:pcie|nvlink or cpu:FLOPS:MEMBW")->required();
  cmd->add_option("out", out, "Output .xml")->required();
  cmd->callback([] {
    if (Status s = GeneratePlatform(spec, out); !s.ok()) Fail("sim-platform", s);
  });
});

}  // namespace
}  // namespace fb::apps
