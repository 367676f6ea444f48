// The `flowbench` command line. Subcommands are thin: they parse flags and call libraries.
#include <CLI/CLI.hpp>

#include "apps/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"flowbench: a dataflow-graph ML systems testbed (TensorFlow whitepaper, 2015)"};
  app.require_subcommand(1);
  fb::apps::RegisterAllCommands(&app);
  CLI11_PARSE(app, argc, argv);
  return fb::apps::ExitCode();
}
