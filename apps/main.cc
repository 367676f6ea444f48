// The `flowbench` command line. Subcommands are thin: they parse flags and call libraries.
// Debug environment: FLOWBENCH_PRINT_LOADED_LIBRARIES=1 lists on stderr, when the process exits,
// every shared object it has mapped ("flowbench: loaded <path>"): a CPU-only run maps no CUDA
// library, a --devices gpu:N run also libflowbench_cuda.so and the CUDA libraries
// (engine/framework/device_plugin.h; tests/engine/framework/device_plugin_test.cc).
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "engine/framework/device_plugin.h"

namespace {
void PrintLoadedLibraries() {
  for (const std::string& name : fb::LoadedSharedObjects())
    std::cerr << "flowbench: loaded " << name << "\n";
}
}  // namespace

int main(int argc, char** argv) {
  if (const char* v = std::getenv("FLOWBENCH_PRINT_LOADED_LIBRARIES"); v && std::string(v) == "1")
    std::atexit(PrintLoadedLibraries);
  CLI::App app{"flowbench: a dataflow-graph ML systems testbed (TensorFlow whitepaper, 2015)"};
  app.require_subcommand(1);
  fb::apps::RegisterAllCommands(&app);
  // A numeric flag without a range check is a bug of this binary, not of the command line.
  if (std::string bad = fb::apps::UncheckedNumericFlag(&app); !bad.empty()) {
    std::cerr << "flowbench: internal error: numeric flag '" << bad
              << "' has no FiniteRange/IntRange check (apps/flag_checks.h)\n";
    return 70;
  }
  CLI11_PARSE(app, argc, argv);
  return fb::apps::ExitCode();
}
