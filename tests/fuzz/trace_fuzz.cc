// libFuzzer target: HDF5 traces (engine/trace/trace_reader.h, docs/trace-format.md) as
// `flowbench trace summary` and `flowbench trace export --chrome` read them: TraceReader::Open,
// then, for a trace that opens, the summary and the Chrome trace-event JSON (which index
// /strings and /devices with the ids the reader validated). Any Status is an acceptable answer;
// crashes, hangs, leaks, UB and allocations beyond libFuzzer's -malloc_limit_mb are findings.
// HDF5 itself is not instrumented: coverage guides through our reader only.
// Seeds: tests/fuzz/corpus/trace (tests/fuzz/make_seeds.cc), dictionary hdf5.dict.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "engine/trace/trace_chrome.h"
#include "engine/trace/trace_reader.h"
#include "engine/trace/trace_summary.h"
#include "tests/fuzz/fuzz_input_file.h"
#include "tests/fuzz/isolated_children.h"

// A loop inside libhdf5 (version-1 string attributes) ends at the reader's child deadline as
// DataLoss; keep that deadline well inside libFuzzer's -timeout (10 s in scripts/fuzz).
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fb::fuzz::QuietForkedChildren();
  setenv("FLOWBENCH_TRACE_READ_TIMEOUT_S", "3", /*overwrite=*/0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fb::fuzz::WriteInputFile(data, size, "trace", ".h5");
  fb::StatusOr<fb::Trace> trace = fb::TraceReader::Open(path);
  if (!trace.ok()) return 0;
  (void)fb::FormatTraceSummary(fb::SummarizeTrace(*trace), 10);
  (void)fb::ChromeTraceJson(*trace, fb::ChromeExportOptions{}).dump();
  return 0;
}
