// Runs one `flowbench benchmark` configuration in a fresh process (the flowbench binary, exec'd),
// as `analysis/sim_holdout.py` and users measure a configuration, for `flowbench profile`.
//
// Why (docs/simulator.md, "Fresh processes"): steps timed in a process that has already run
// other configurations are slower than the same steps in a fresh process, and the simulator
// predicts fresh runs. Measured on the 2-core machine (2026-11-27, load 0.9-1.3): MLP batch 16 on
// one thread profiled first took 0.36-0.38 ms per step, after batch 64 in the same process
// 0.45-0.50 ms; over the twelve configurations of two profiles every in-process step median was
// above a fresh process's (MLP +10..+74%, LeNet -2..+23%). A forked child (the parent's state)
// timed them 25% slower than fresh processes, so the binary is exec'd.
#ifndef FLOWBENCH_SIM_BENCHMARK_PROCESS_H_
#define FLOWBENCH_SIM_BENCHMARK_PROCESS_H_

#include <string>

#include "engine/framework/status.h"
#include "experiments/training/benchmark.h"

namespace fb::sim {

// Runs `binary benchmark` with o's model, batch size, optimizer, mode, threads, devices, step
// counts, trace_path and trace_steps (o.dataset must be null: synthetic input; placer, passes
// and the other model options are not passed: the profile leaves them at their defaults), its
// metrics JSON written to `metrics_path` (removed afterwards) and its output to
// `metrics_path + ".log"` (removed). Returns model, batch_size, devices and step_ms (the other
// fields are left at their defaults).
// Errors: InvalidArgument when o.dataset is set; Internal naming the command line when the
// process cannot start, exits with a non-zero status (with the last lines of its output) or dies
// of a signal, or its metrics JSON cannot be read.
StatusOr<experiments::BenchmarkResult> RunBenchmarkProcess(const std::string& binary,
                                                           const experiments::BenchmarkOptions& o,
                                                           const std::string& metrics_path);

}  // namespace fb::sim

#endif  // FLOWBENCH_SIM_BENCHMARK_PROCESS_H_
