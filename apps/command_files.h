#pragma once
// Files the `flowbench` subcommands write: the metrics JSON (--metrics-json) and the trace
// metadata of real runs (--trace), shared so that every command writes them the same way.
#include <string>

#include <nlohmann/json.hpp>

#include "engine/framework/status.h"
#include "engine/trace/trace_schema.h"

namespace fb::apps {

// Creates the directories above `path` if missing (errors are left to the write that follows).
void CreateParentDirectories(const std::string& path);

// Writes `j` (indented, newline-terminated) to `path`, creating its directory. Internal naming
// the file when it cannot be written.
Status WriteJsonFile(const std::string& path, const nlohmann::json& j);

// Trace metadata of a real run of this process (DefaultTraceMetadata with this process's argv,
// host and git revision), after creating the directories above `trace_path`.
TraceMetadata RealRunTraceMetadata(const std::string& trace_path);

}  // namespace fb::apps
