#include "apps/command_files.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include "apps/commands.h"

namespace fb::apps {

void CreateParentDirectories(const std::string& path) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
}

Status WriteJsonFile(const std::string& path, const nlohmann::json& j) {
  CreateParentDirectories(path);
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  out.close();
  if (!out) return Internal("cannot write metrics JSON '", path, "'");
  return Status::OK();
}

TraceMetadata RealRunTraceMetadata(const std::string& trace_path) {
  CreateParentDirectories(trace_path);
  const std::vector<std::string> args = ProcessArgs();
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  return DefaultTraceMetadata(TraceMode::kReal, static_cast<int>(argv.size()), argv.data());
}

}  // namespace fb::apps
