#pragma once
// Subcommand registry for the `flowbench` CLI: each apps/<name>_command.cc registers itself with
// FB_REGISTER_COMMAND, so adding a subcommand is adding a file.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/framework/status.h"

namespace fb::apps {

// Adds the subcommand to `app`; the callback it installs reports failure via SetExitCode.
using CommandSetup = std::function<void(CLI::App* app)>;
void RegisterCommand(const std::string& name, CommandSetup setup);
void RegisterAllCommands(CLI::App* app);
// Prints a failed Status to stderr ("flowbench <cmd>: <status>") and sets the exit code to 1.
void Fail(const std::string& command, const Status& s);
int ExitCode();
// This process's argv, read from /proc/self/cmdline (for traces' command_line attribute).
std::vector<std::string> ProcessArgs();

struct CommandRegistrar {
  CommandRegistrar(const std::string& name, CommandSetup setup) { RegisterCommand(name, std::move(setup)); }
};
#define FB_REGISTER_COMMAND(name, setup) \
  static ::fb::apps::CommandRegistrar FB_CONCAT(fb_command_, __COUNTER__)(name, setup)

}  // namespace fb::apps
