// libFuzzer target: SimGrid platform files as `flowbench sim --platform FILE.xml` loads them.
//  1. In process, what the fuzzer explores: ValidatePlatformFile (sim/platform_validation.h), the
//     check that runs before SimGrid reads a file because SimGrid aborts on many bad platforms.
//  2. For a file it accepts, in a forked child (SimGrid allows one engine per process; see
//     tests/fuzz/fork_check.h): Simulation::LoadPlatform, the public loader (validation, SimGrid's
//     parser, sealing, resource and device checks). It may return any Status; a child that
//     crashes, aborts or hangs is a finding: the validation let through a file SimGrid cannot
//     take. Coverage of the child does not guide the fuzzer, which is why step 1 is separate.
// Seeds: tests/fuzz/corpus/platform (tests/fuzz/make_seeds.cc), dictionary platform.dict.
#include <cstddef>
#include <cstdint>

#include "sim/platform_validation.h"
#include "sim/simulator.h"
#include "tests/fuzz/fork_check.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fb::fuzz::WriteInputFile(data, size, "platform", ".xml");
  if (!fb::sim::ValidatePlatformFile(path).ok()) return 0;
  fb::fuzz::CheckInChild("Simulation::LoadPlatform of a validated platform", 5, [&] {
    fb::sim::Simulation sim;
    (void)sim.LoadPlatform(path);
  });
  return 0;
}
