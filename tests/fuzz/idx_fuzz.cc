// libFuzzer target: IDX files (MNIST, Fashion-MNIST; plain or gzip-compressed) as the dataset
// ops read them (datasets/idx_reader.h: ReadIdxFile). Any Status is an acceptable answer;
// crashes, hangs, leaks, UB and allocations beyond libFuzzer's -malloc_limit_mb (dimensions
// promising more data than the file holds) are findings. An array that reads must hold exactly
// the elements its dimensions say, with a rank of 1 to 4 (the reader's documented contract).
// Seeds: tests/fuzz/corpus/idx (tests/fuzz/make_seeds.cc).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "datasets/idx_reader.h"
#include "tests/fuzz/fuzz_input_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fb::fuzz::WriteInputFile(data, size, "idx", ".idx");
  fb::StatusOr<fb::datasets::IdxArray> a = fb::datasets::ReadIdxFile(path);
  if (!a.ok()) return 0;
  const bool rank_ok = !a->dims.empty() && a->dims.size() <= 4;
  if (!rank_ok || static_cast<int64_t>(a->data.size()) != a->num_elements()) {
    std::fprintf(stderr, "ReadIdxFile accepted rank %zu with %zu bytes for %lld elements\n",
                 a->dims.size(), a->data.size(), static_cast<long long>(a->num_elements()));
    std::abort();
  }
  return 0;
}
