#pragma once
// The output of `flowbench benchmark` (apps/benchmark_command.cc), in the style of
// tf_cnn_benchmarks: a header describing the run, a summary with throughput
// ("images/sec: 512.3 +/- 4.1 (jitter = 3.0)"), step-time percentiles and peak memory, and the
// metrics JSON (fields documented in docs/benchmarks.md, "flowbench benchmark").
#include <string>

#include <nlohmann/json.hpp>

#include "experiments/training/benchmark.h"

namespace fb::apps {

// Settings of the run that the library does not see (BLAS threads are process-wide).
struct BenchmarkRunInfo {
  experiments::BenchmarkOptions options;
  int blas_threads = 1;
};

// Version of the metrics JSON layout ("schema" field); bump when a field changes meaning.
inline constexpr const char* kBenchmarkJsonSchema = "flowbench-benchmark/1";

// Model, mode, batch, optimizer, threads, devices, data, parameter count and forward FLOPs per
// example, one per line, ending with a "==========" line.
std::string BenchmarkHeader(const BenchmarkRunInfo& info, const experiments::BenchmarkResult& r);
// Throughput ("<unit>/sec: MEAN +/- STDERR (jitter = J)", median, total), ms/step (median,
// p10, p90), peak bytes per device and the process's peak RSS.
std::string BenchmarkSummary(const experiments::BenchmarkResult& r);
// The metrics JSON object (fields: docs/benchmarks.md).
nlohmann::json BenchmarkJson(const BenchmarkRunInfo& info, const experiments::BenchmarkResult& r);
// "12.3 MiB" (binary units, one decimal).
std::string FormatBytes(int64_t bytes);

}  // namespace fb::apps
