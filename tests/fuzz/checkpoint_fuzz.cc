// libFuzzer target: checkpoint files (HDF5, engine/checkpoint/checkpoint_file.h) as
// Restore kernels and the distributed trainer's restart read them: ListCheckpoint, then
// ReadCheckpointTensor of every listed tensor with the dtype and shape the listing reports, and
// of "w" as float of unknown shape (a name the seeds hold). Any Status is an acceptable answer;
// crashes, hangs, leaks, UB and allocations beyond libFuzzer's -malloc_limit_mb are findings.
// HDF5 itself is not instrumented: coverage guides through our reader only, but ASan still sees
// HDF5 writing into our buffers.
// Seeds: tests/fuzz/corpus/checkpoint (tests/fuzz/make_seeds.cc), dictionary hdf5.dict.
#include <cstddef>
#include <cstdint>

#include "engine/checkpoint/checkpoint_file.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/isolated_children.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fb::fuzz::QuietForkedChildren();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fb::fuzz::WriteInputFile(data, size, "ckpt", ".h5");
  (void)fb::ReadCheckpointTensor(path, "w", fb::DataType::kFloat);
  fb::StatusOr<std::vector<fb::CheckpointEntry>> entries = fb::ListCheckpoint(path);
  if (!entries.ok()) return 0;
  for (const fb::CheckpointEntry& e : *entries) {
    fb::StatusOr<fb::Tensor> t = fb::ReadCheckpointTensor(path, e.name, e.dtype, e.shape);
    if (t.ok()) (void)t->DebugString(4);
  }
  return 0;
}
