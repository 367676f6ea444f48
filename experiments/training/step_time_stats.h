#pragma once
// Summary statistics of timed steps for `flowbench benchmark` (experiments/training/benchmark.h),
// in the style of tf_cnn_benchmarks (benchmark_cnn.py, get_perf_timing): throughput as the mean
// of the per-step speeds with its standard error and a robust spread ("jitter"), and the step
// time's median and 10th/90th percentiles.
#include <cstdint>
#include <vector>

#include "engine/framework/status.h"

namespace fb::experiments {

struct StepTimeStats {
  int64_t steps = 0;
  // Step wall time in milliseconds.
  double ms_median = 0, ms_p10 = 0, ms_p90 = 0, ms_mean = 0;
  // Throughput in examples per second (images, or words for a language model), from the
  // per-step speeds s_i = examples_per_step / t_i:
  double examples_per_sec_mean = 0;         // mean of s_i
  double examples_per_sec_uncertainty = 0;  // standard error: std(s) / sqrt(n), population std
  double examples_per_sec_jitter = 0;       // 1.4826 * median |s_i - median(s)| (MAD as a std)
  double examples_per_sec_median = 0;       // examples_per_step / ms_median
};

// Summarizes `step_ms` (one wall time per timed step, milliseconds). InvalidArgument when
// `step_ms` is empty, a time is not positive and finite, or examples_per_step < 1.
StatusOr<StepTimeStats> SummarizeStepTimes(const std::vector<double>& step_ms,
                                           int64_t examples_per_step);

// The q-quantile (q in [0, 1]) of `values` with linear interpolation between the closest ranks
// (numpy.percentile's default): Quantile({1, 2, 3, 4}, 0.5) = 2.5. `values` must not be empty.
double Quantile(std::vector<double> values, double q);

}  // namespace fb::experiments
