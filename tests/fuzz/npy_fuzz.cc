// libFuzzer target: NumPy .npy files as `flowbench run --feed NAME=FILE.npy` reads them
// (engine/io/npy.h: ReadNpy). A tensor that reads is described as the CLI prints it. Any Status
// is an acceptable answer; crashes, hangs, leaks, UB and allocations beyond libFuzzer's
// -malloc_limit_mb (a header promising more data than the file holds) are findings.
// Seeds: tests/fuzz/corpus/npy (tests/fuzz/make_seeds.cc), dictionary npy.dict.
#include <cstddef>
#include <cstdint>

#include "engine/io/npy.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fb::fuzz::WriteInputFile(data, size, "npy", ".npy");
  fb::StatusOr<fb::Tensor> t = fb::ReadNpy(path);
  if (!t.ok()) return 0;
  (void)t->TypeAndShapeString();
  (void)t->DebugString(8);
  return 0;
}
