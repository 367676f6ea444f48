// libFuzzer target: SimGrid platform files as `flowbench sim --platform FILE.xml` loads them.
// SimGrid allows one engine per process and aborts on some malformed platforms, so the load
// runs in a forked child (tests/fuzz/fork_check.h): the platform is loaded into a fresh engine
// and its devices are read (sim/platform.h: PlatformDevices). Any Status is an acceptable answer;
// a child that crashes, aborts or hangs is a finding.
// Seeds: tests/fuzz/corpus/platform (tests/fuzz/make_seeds.cc), dictionary platform.dict.
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <cstddef>
#include <cstdint>

#include "sim/platform.h"
#include "tests/fuzz/fork_check.h"
#include "tests/fuzz/fuzz_input_file.h"

namespace {

// What fb::sim::Simulation's constructor and LoadPlatform do, without the rest of the simulator.
void LoadIntoSimGrid(const std::string& path) {
  int argc = 1;
  static char name[] = "flowbench-fuzz-platform";
  char* argv[] = {name, nullptr};
  xbt_log_control_set("root.thresh:critical");
  simgrid::s4u::Engine engine(&argc, argv);
  try {
    engine.load_platform(path);
  } catch (const std::exception&) {
    return;  // Simulation::LoadPlatform turns this into InvalidArgument naming the file
  }
  (void)fb::sim::PlatformDevices(engine);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fb::fuzz::WriteInputFile(data, size, "platform", ".xml");
  fb::fuzz::CheckInChild("SimGrid load_platform", 10, [&] { LoadIntoSimGrid(path); });
  return 0;
}
