// The `flowbench` command line. Subcommands are thin: they parse flags and call libraries.
// Debug environment: FLOWBENCH_PRINT_LOADED_LIBRARIES=1 lists on stderr, when the process exits,
// every shared object it has mapped ("flowbench: loaded <path>"): a CPU-only run maps no CUDA
// library, a --devices gpu:N run also libflowbench_cuda.so and the CUDA libraries
// (engine/framework/device_plugin.h; tests/engine/framework/device_plugin_test.cc).
#include <malloc.h>

#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "engine/framework/device_plugin.h"

namespace {
// Keeps freed tensor buffers in malloc's heap instead of returning them to the OS, in every
// command: otherwise every step's large activations (over glibc's mmap threshold) are fresh mmaps
// whose pages fault in on first touch (about a tenth of a LeNet step's CPU time, half of its
// system time), and how often depends on the process's history (glibc raises the threshold
// dynamically): `flowbench profile` timed MLP's 0.44 ms steps 0.54-0.77 ms after profiling LeNet
// in the same process, 0.49-0.53 ms with these settings (docs/simulator.md, session 23).
void KeepFreedMemory() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
}

void PrintLoadedLibraries() {
  for (const std::string& name : fb::LoadedSharedObjects())
    std::cerr << "flowbench: loaded " << name << "\n";
}
}  // namespace

int main(int argc, char** argv) {
  KeepFreedMemory();
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
