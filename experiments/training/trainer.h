#pragma once
// The training loop of `flowbench train` (issue 3), as a library so tests and other commands can
// run it: builds a model (experiments/models/models.h) reading its batches through the DatasetBatch
// input op (whitepaper 4.5), runs the initializers or resumes from the newest checkpoint (3.3),
// runs one Session step per batch, checkpoints periodically, traces the first steps into an
// HDF5 trace (section 9, EEG) and evaluates test accuracy at the end.
//
// Determinism: with the same seed and thread count, two runs give identical loss curves, and a
// run interrupted and resumed from a checkpoint ends with the same weights as an uninterrupted
// one: the checkpoint holds every Variable, including the optimizer slots and input/step (the
// input op's position), and the input op's shuffling is a function of (seed, epoch) only.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "datasets/dataset.h"
#include "engine/runtime/session.h"
#include "engine/trace/trace_schema.h"
#include "experiments/models/models.h"

namespace fb::experiments {

// When to checkpoint: every `steps` steps or every `seconds` seconds (one of them non-zero).
struct CheckpointEvery {
  int64_t steps = 0;
  double seconds = 0;
};
// "500" (steps) or "30s" (seconds). InvalidArgument quoting `text` otherwise.
StatusOr<CheckpointEvery> ParseCheckpointEvery(const std::string& text);

struct TrainOptions {
  std::string model = "mlp";
  ModelOptions model_options;  // dataset is set by Train
  int64_t epochs = 1;
  int threads = 2;             // CPU threads in all (inter- and intra-op pools)
  // Multi-device execution (issue 4): `devices` CPU devices ("cpu:N", each with threads/N
  // threads) or the host CPU and N GPUs ("gpu:N": the model on GPU:0 with the default placer,
  // the input op and checkpoints on the CPU; engine/runtime/local_devices.h), the placer that
  // assigns nodes to them ("" for the default) and the graph passes run after the default ones
  // (engine/passes: cse, materialize_shapes, identity_removal,
  // constant_folding, alap_recv, compression).
  std::string devices = "cpu:1";
  std::string placer;
  uint64_t placer_seed = 0;  // seed of the "random" placer (engine/placement/placer.h)
  std::vector<std::string> passes;
  // The Session's default passes (engine/passes/graph_pass.h DefaultGraphPasses) before
  // `passes`; false: only `passes` (flowbench train --no-default-passes).
  bool default_passes = true;
  std::string checkpoint_dir;  // "" for no checkpoints
  CheckpointEvery checkpoint_every;
  int keep_checkpoints = 5;
  bool resume = false;  // continue from the newest checkpoint in checkpoint_dir, if any
  // Stop after this many steps of this run (-1: run to the end); a checkpoint is written when
  // stopping early. For tests of resuming and for quick runs.
  int64_t max_steps = -1;
  std::string trace_path;     // "" for no trace
  int64_t trace_steps = 20;   // steps traced (the first of this run, after one warm-up step)
  TraceMetadata trace_metadata;
  int64_t eval_batch_size = 1000;
};

struct StepProgress {
  int64_t step = 0;          // global step just finished (counted from 1)
  int64_t total_steps = 0;
  int64_t steps_per_epoch = 0;
  double loss = 0;
  double elapsed_s = 0;      // since this run's first step
  int64_t steps_this_run = 0;
};
using ProgressFn = std::function<void(const StepProgress&)>;

struct TrainResult {
  int64_t first_step = 0;  // 0, or where a resumed run started
  std::string resumed_from;  // the checkpoint file a resumed run restored, else empty
  // Files a resume skipped (corrupt checkpoints, unreadable names), each "<file>: <reason>";
  // also logged as warnings.
  std::vector<std::string> resume_warnings;
  std::vector<std::string> devices;  // "name (description)" of each device the run used
  int64_t steps = 0;       // global steps completed at the end
  int64_t total_steps = 0;
  std::vector<double> losses;    // per step of this run
  std::vector<double> step_ms;   // per step of this run (wall time of Session::Run)
  double test_accuracy = -1;     // -1 when no test set was given
  double wall_s = 0;             // whole Train call, including evaluation
  std::vector<std::string> variable_names;
  std::vector<Tensor> final_variables;  // values of the trainable variables at the end
  double MedianStepMs() const;
};

// Trains on `train` and evaluates on `test` (may be null). With `resume`, restores the newest
// valid checkpoint of checkpoint_dir (engine/checkpoint/checkpoint_dir.h: corrupt newer ones
// are skipped with a warning; an intact one that does not fit the model is an error naming the
// file and the variable, and is not overwritten) and starts from scratch only when the directory
// holds no checkpoint. Errors: those of BuildModel, the Session (naming the node), checkpoints
// (naming the file and variable) and traces (naming the file); InvalidArgument for non-positive
// epochs or threads, or a dataset smaller than a batch; FailedPrecondition naming the flag for
// "gpu:N" without N visible GPUs.
StatusOr<TrainResult> Train(const TrainOptions& options,
                            std::shared_ptr<const datasets::Dataset> train,
                            std::shared_ptr<const datasets::Dataset> test,
                            const ProgressFn& progress = nullptr);

// Accuracy of the model's current weights on `data`, fed in batches to model.images/labels.
StatusOr<double> Evaluate(Session* session, const Model& model, const datasets::Dataset& data,
                          int64_t batch_size);

}  // namespace fb::experiments
