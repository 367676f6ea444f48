#include "apps/commands.h"

#include <fstream>
#include <iostream>
#include <map>

namespace fb::apps {

namespace {
std::map<std::string, CommandSetup>& Commands() {
  static auto* m = new std::map<std::string, CommandSetup>;
  return *m;
}
int g_exit_code = 0;
}  // namespace

void RegisterCommand(const std::string& name, CommandSetup setup) { Commands()[name] = std::move(setup); }

void RegisterAllCommands(CLI::App* app) {
  for (auto& [name, setup] : Commands()) setup(app);
}

void Fail(const std::string& command, const Status& s) {
  std::cerr << "flowbench " << command << ": " << s.ToString() << std::endl;
  g_exit_code = 1;
}

int ExitCode() { return g_exit_code; }

std::vector<std::string> ProcessArgs() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  std::string arg;
  while (std::getline(in, arg, '\0')) args.push_back(arg);
  return args;
}

}  // namespace fb::apps
