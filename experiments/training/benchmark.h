#pragma once
// The measurement loop of `flowbench benchmark`, as a library so tests and other commands can
// run it: builds a registered model (experiments/models/models.h) at its default input shape,
// runs warm-up steps, then times `num_batches` steps, one Session::Run each, in the modes
// convnet-benchmarks and tf_cnn_benchmarks report separately:
//   forward           the logits only (convnet-benchmarks' "forward")
//   forward-backward  the loss and every gradient, no variable update (convnet-benchmarks'
//                     "forward-backward", as TensorFlow was timed in its Table 1)
//   train             one full training step: gradients and the optimizer's update
//                     (tf_cnn_benchmarks' default)
// Input: synthetic by default (one batch of random images of the model's input shape and random
// labels, generated once and fed to the input Placeholders every step, so that input does not
// dominate the time), or a registered dataset read by the DatasetBatch input op (whitepaper 4.5)
// when the model's input shape matches it. Without a weight update (forward, forward-backward)
// the input op's position does not advance, so every step reads the same batch.
//
//   BenchmarkOptions o;  o.model = "lenet";  o.mode = BenchmarkMode::kForward;
//   ASSIGN_OR_RETURN(BenchmarkResult r, RunBenchmark(o));
//   r.stats.examples_per_sec_mean  // images/sec as tf_cnn_benchmarks prints it
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "engine/trace/trace_schema.h"
#include "experiments/models/models.h"
#include "experiments/training/step_time_stats.h"
#include "experiments/training/trainer.h"

namespace fb::experiments {

enum class BenchmarkMode { kForward, kForwardBackward, kTrain };
// "forward", "forward-backward", "train".
const char* BenchmarkModeName(BenchmarkMode mode);
// What the mode runs, for headers: "forward pass: logits only", ...
const char* BenchmarkModeDescription(BenchmarkMode mode);
// The inverse of BenchmarkModeName. InvalidArgument quoting `name` and listing the modes.
StatusOr<BenchmarkMode> ParseBenchmarkMode(const std::string& name);

struct BenchmarkOptions {
  std::string model = "lenet";
  // batch_size, optimizer, learning_rate, momentum, seed and hidden_units are used; image_shape
  // and num_classes are replaced by the model's registered defaults (LookupDefaults).
  ModelOptions model_options;
  // null: synthetic input. Otherwise its images must have the model's input shape and its
  // labels must be below the model's number of classes.
  std::shared_ptr<const datasets::Dataset> dataset;
  BenchmarkMode mode = BenchmarkMode::kTrain;
  int64_t num_batches = 100;        // timed steps (>= 1)
  int64_t num_warmup_batches = 10;  // untimed steps before them (>= 0)
  int threads = 2;                  // CPU threads in all (inter- and intra-op), as train
  // "cpu:N" or "gpu:N" (the model on the GPU, input and feeds on the CPU;
  // engine/runtime/local_devices.h)
  std::string devices = "cpu:1";
  std::string placer;               // "" for the default placer
  // The Session's default graph passes (engine/passes/graph_pass.h DefaultGraphPasses), as
  // TensorFlow runs Grappler by default; false times the graph as the model builder made it.
  bool default_passes = true;
  // Further graph passes by name, run after the defaults (SessionOptions::passes), e.g.
  // "fuse_conv_bias_relu" (engine/passes/fuse_conv_bias_relu.h). Empty by default.
  std::vector<std::string> passes;
  // HDF5 trace (engine/trace): the graph, one /steps row per timed step and, after the timed
  // steps, `trace_steps` more steps traced node by node (so tracing does not perturb timing).
  std::string trace_path;  // "" for no trace
  int64_t trace_steps = 5;
  TraceMetadata trace_metadata;
};

enum class BenchmarkPhase { kWarmup, kTiming, kTracing };
// "warm-up", "timing", "tracing".
const char* BenchmarkPhaseName(BenchmarkPhase phase);

struct BenchmarkResult {
  std::string model;
  BenchmarkMode mode = BenchmarkMode::kTrain;
  std::string data;                  // "synthetic" or the dataset's name
  std::vector<int64_t> image_shape;  // [rows, cols, channels] the model ran at; [num_steps] (words)
  int64_t num_classes = 0;           // classes; the vocabulary size for words
  int64_t batch_size = 0;
  std::vector<std::string> devices;  // "name (description)" of each device of the run
  int64_t examples_per_step = 0;  // Model::examples_per_step
  std::string example_unit;       // Model::example_unit ("images", "words")
  int64_t parameter_count = 0;    // trainable scalars (sum over Model::variables)
  // Forward FLOPs per example in example_unit (model_stats.h); empty for a while-loop graph.
  std::optional<double> forward_flops_per_example;
  // What the graph passes changed in the timed signature ("identity_removal: 265 changes"; the
  // per-node lines of PassReport::Summary left out), empty with no pass changing anything.
  std::vector<std::string> pass_reports;
  std::vector<double> step_ms;  // wall time of every timed step
  StepTimeStats stats;          // summary of step_ms
  // examples_per_step * num_batches / wall time of the whole timed loop (tf_cnn_benchmarks'
  // "total images/sec").
  double total_examples_per_sec = 0;
  // Per device (full name): the allocator's peak bytes in use during a timed step, maximum over
  // the timed steps (Variables, optimizer slots and the step's live tensors).
  std::map<std::string, int64_t> peak_bytes;
  int64_t peak_rss_bytes = 0;  // this process's peak resident set (getrusage) at the end
  // Loss of the last timed step; NaN in forward mode.
  double final_loss = std::numeric_limits<double>::quiet_NaN();
  double wall_s = 0;  // the whole RunBenchmark call, including model building
};

// What RunBenchmark reports while it runs (each may be empty).
struct BenchmarkCallbacks {
  // Once the model is built, before the first step: the result with everything but the
  // measurements filled in (for a header).
  std::function<void(const BenchmarkResult&)> built;
  // After every step: the phase and the step within it (StepProgress.step counts from 1 to
  // total_steps; loss is NaN in forward mode; steps_per_epoch is 0).
  std::function<void(BenchmarkPhase, const StepProgress&)> step;
};

// Runs the benchmark. Errors: those of BuildModel (NotFound naming an unknown model and listing
// the known ones), the Session (naming the node) and the trace writer (naming the file);
// InvalidArgument for num_batches < 1, num_warmup_batches < 0, threads < 1, a dataset whose
// image shape differs from the model's (naming both), a dataset with more classes than the
// model or fewer examples than a batch; FailedPrecondition naming the flag for "gpu:N" without
// N visible GPUs.
StatusOr<BenchmarkResult> RunBenchmark(const BenchmarkOptions& options,
                                       const BenchmarkCallbacks& callbacks = {});

// Whether `dataset` can feed model `model` at `batch_size`: its images have the model's input
// shape (LookupDefaults), its classes are no more than the model's outputs and it holds at least
// one batch. InvalidArgument naming the dataset, the model and both shapes (or counts)
// otherwise; NotFound for an unknown model.
Status CheckDatasetFitsModel(const std::string& model, const datasets::Dataset& dataset,
                             int64_t batch_size);

// This process's peak resident set size in bytes: VmHWM of /proc/self/status (the peak since this
// process image started; getrusage's ru_maxrss where /proc is missing), 0 if unavailable.
int64_t ProcessPeakRssBytes();

}  // namespace fb::experiments
