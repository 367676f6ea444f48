// The `flowbench` command line. Subcommands are thin: they parse flags and call libraries.
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/commands.h"
#include "apps/flag_checks.h"

int main(int argc, char** argv) {
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
