#pragma once
// `flowbench profile` as a library (issue 17): measures this host for the simulator's profile
// cost model (sim/profile.h, sim/profile_cost_model.h).
//
// For each (model, batch, threads): RunBenchmark (experiments/training/benchmark.h, train mode,
// synthetic input) times `timed_steps` untraced steps after `warmup_steps`, then traces
// `traced_steps` more node by node. A point per node: its mean duration over the traced steps
// whose sum of node times lies between the 20th and 80th percentile (dropping preempted steps
// of a shared machine), with the node's FLOPs and bytes from the analytic cost model over the
// shapes of BuildModelGraph(model, batch) (the same builder, so the same node names).
// Per thread count, the executor's fixed costs (sim/executor_cost_probe.h).
//
// With devices "gpu:1" (issue 21) the benchmark runs the model on the GPU (input and feeds on
// the CPU, as `flowbench benchmark --devices gpu:1`) and the profile records the GPU's
// description ("NVIDIA H200, sm_90, 143155 MiB") as its device. A traced GPU step waits for the
// GPU after every node, so a point is the kernel's GPU time plus a launch and a
// synchronisation; the untraced steps' median is the step the simulator's step correction
// (sim/profile_cost_model.h) fits the points to. `mode` is the benchmark mode profiled.
#include <functional>
#include <string>
#include <vector>

#include "sim/profile.h"

namespace fb::sim {

struct ProfileOptions {
  std::vector<std::string> models{"lenet", "mlp"};
  std::vector<int64_t> batch_sizes{16, 64, 256};
  std::vector<int> threads{1, 2};
  int warmup_steps = 5;
  int timed_steps = 20;
  int traced_steps = 10;
  std::string devices = "cpu:1";  // or "gpu:1" (engine/runtime/local_devices.h)
  std::string mode = "train";     // forward, forward-backward or train (benchmark.h)
  std::string scratch_dir = "/tmp";  // where the per-configuration traces are written (removed)
  // The flowbench binary: each configuration runs as `benchmark_binary benchmark ...` in a fresh
  // process (sim/benchmark_process.h; `flowbench profile` sets itself). Empty: in this process,
  // one configuration after the other (later ones then run in the state earlier ones left).
  std::string benchmark_binary;
};

// Progress lines ("lenet batch 64 threads 1: median step 12.3 ms (load 3.1)").
using ProfileLog = std::function<void(const std::string&)>;

// Fills points, steps, executor, device_type, mode and (for a GPU) device; the caller sets the
// host fields (and device for a CPU).
// Errors: InvalidArgument for an empty list, a batch or thread count < 1 or step counts < 1
// (naming the option), another mode (quoting it) or devices other than cpu:1 and gpu:1;
// FailedPrecondition naming --devices when devices is gpu:1 and no GPU is visible, before
// anything is measured; those of RunBenchmark (NotFound naming an unknown model) or, with
// benchmark_binary, of RunBenchmarkProcess (Internal naming the command line and quoting the end
// of its output), of the trace reader and of BuildModelGraph.
StatusOr<Profile> RecordProfile(const ProfileOptions& options, const ProfileLog& log = {});

// The 1-minute load average (/proc/loadavg), or -1 when unavailable.
double LoadAverage1m();

}  // namespace fb::sim
