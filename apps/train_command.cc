// `flowbench train`: trains a model (experiments/models/models.h) on Fashion-MNIST (or synthetic data)
// through the input op, with checkpoints, resume, an HDF5 trace and a metrics JSON.
//   flowbench train --model lenet --epochs 3 --batch-size 64 --optimizer adam --lr 0.001
//     --threads 2 --seed 1 --checkpoint-dir out/ckpt --checkpoint-every 500
//     --trace out/lenet.h5 --metrics-json out/lenet-metrics.json
//   flowbench train --model lenet --devices cpu:4 --placer greedy --passes compression
//   flowbench train --model lenet --devices gpu:1   (engine/runtime/local_devices.h)
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apps/command_files.h"
#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "apps/train_progress.h"
#include "datasets/fashion_mnist.h"
#include "datasets/synthetic.h"
#include "experiments/training/trainer.h"
#include "kernels/cpu/matmul.h"

namespace fb::apps {
namespace {

struct TrainFlags {
  experiments::TrainOptions options;
  std::string dataset = "fashion-mnist";
  std::string checkpoint_every = "500";
  std::string metrics_json;
  std::string compression = "off";  // "on": the compression pass after the others
  int blas_threads = 1;
};

struct Datasets {
  std::shared_ptr<const datasets::Dataset> train, test;
};

// "fashion-mnist" (the Debian package's directory), "synthetic", or a directory of MNIST-format
// IDX files.
StatusOr<Datasets> LoadDatasets(const std::string& name) {
  Datasets d;
  if (name == "synthetic") {
    datasets::SyntheticOptions so;
    so.num_examples = 6400;
    ASSIGN_OR_RETURN(d.train, datasets::MakeSyntheticDataset(so));
    so.num_examples = 1000;
    so.split = 1;
    ASSIGN_OR_RETURN(d.test, datasets::MakeSyntheticDataset(so));
    return d;
  }
  const std::string dir = name == "fashion-mnist" ? datasets::kFashionMnistDir : name;
  ASSIGN_OR_RETURN(datasets::TrainTestSplits splits, datasets::LoadMnistTrainTest(dir));
  d.train = std::move(splits.train);
  d.test = std::move(splits.test);
  return d;
}

Status WriteMetricsJson(const std::string& path, const TrainFlags& f,
                        const experiments::TrainResult& r) {
  const auto& o = f.options;
  nlohmann::json j = {{"model", o.model},
                      {"epochs", o.epochs},
                      {"batch_size", o.model_options.batch_size},
                      {"threads", o.threads},
                      {"blas_threads", f.blas_threads},
                      {"optimizer", o.model_options.optimizer},
                      {"learning_rate", o.model_options.learning_rate},
                      {"seed", o.model_options.seed},
                      {"devices", o.devices},
                      {"placer", o.placer},
                      {"placer_seed", o.placer_seed},
                      {"passes", o.passes},
                      {"device_names", r.devices},
                      {"test_accuracy", r.test_accuracy},
                      {"ms_per_step_median", r.MedianStepMs()},
                      {"steps", r.steps},
                      {"first_step", r.first_step},
                      {"final_loss", r.losses.empty() ? 0.0 : r.losses.back()},
                      {"wall_s", r.wall_s}};
  return WriteJsonFile(path, j);
}

Status RunTrain(TrainFlags& f) {
  ASSIGN_OR_RETURN(f.options.checkpoint_every, experiments::ParseCheckpointEvery(f.checkpoint_every));
  if (f.options.resume && f.options.checkpoint_dir.empty()) {
    return InvalidArgument("--resume needs --checkpoint-dir");
  }
  if (!f.options.trace_path.empty()) {
    f.options.trace_metadata = RealRunTraceMetadata(f.options.trace_path);
  }
  if (f.compression == "on") f.options.passes.push_back("compression");
  SetBlasThreads(f.blas_threads);
  ASSIGN_OR_RETURN(Datasets data, LoadDatasets(f.dataset));
  TrainProgress progress(stdout, isatty(fileno(stdout)) != 0);
  auto result = experiments::Train(f.options, data.train, data.test,
                                   [&](const experiments::StepProgress& p) { progress.Update(p); });
  progress.Finish();
  RETURN_IF_ERROR(result.status());
  const experiments::TrainResult& r = *result;
  fmt::print(stdout,
      "{}: test accuracy {:.2f}% after {} steps ({} this run), {:.3f} ms/step (median), "
      "total {:.1f} s\n",
      f.options.model, 100 * r.test_accuracy, r.steps, r.steps - r.first_step, r.MedianStepMs(),
      r.wall_s);
  std::fflush(stdout);
  if (!f.metrics_json.empty()) RETURN_IF_ERROR(WriteMetricsJson(f.metrics_json, f, r));
  return Status::OK();
}

void Setup(CLI::App* app) {
  auto* cmd = app->add_subcommand("train", "Train a model on Fashion-MNIST or synthetic images");
  auto f = std::make_shared<TrainFlags>();
  auto& o = f->options;
  auto& m = o.model_options;
  cmd->add_option("--model", o.model, "Model (flowbench benchmark --list-models)")->capture_default_str();
  cmd->add_option("--dataset", f->dataset,
                  "fashion-mnist, synthetic, or a directory of MNIST-format IDX files")
      ->capture_default_str();
  cmd->add_option("--epochs", o.epochs, "Passes over the training set")
      ->check(PositiveCount(kMaxEpochs))->capture_default_str();
  cmd->add_option("--steps,--max-steps", o.max_steps,
                  "Stop after this many steps of this run (default: run every epoch)")
      ->check(PositiveCount(kMaxSteps));
  cmd->add_option("--batch-size,--batch", m.batch_size, "Examples per step")
      ->check(PositiveCount(kMaxBatchSize))->capture_default_str();
  cmd->add_option("--lr,--learning-rate", m.learning_rate, "Learning rate")
      ->check(FiniteRange(1e-12, kMaxLearningRate))->capture_default_str();
  cmd->add_option("--momentum", m.momentum, "Momentum of --optimizer momentum")
      ->check(FiniteRange(0, 1))->capture_default_str();
  cmd->add_option("--optimizer", m.optimizer, "sgd, momentum or adam")
      ->check(CLI::IsMember({"sgd", "momentum", "adam"}))
      ->capture_default_str();
  cmd->add_option("--hidden", m.hidden_units, "MLP hidden layer sizes")
      ->check(PositiveCount(kMaxUnits))->delimiter(',')->capture_default_str();
  cmd->add_option("--seed", m.seed, "Seed of weight initialisation and shuffling")
      ->check(IntRange(0, INT64_MAX))->capture_default_str();
  cmd->add_option("--threads", o.threads, "CPU threads (shared among --devices)")
      ->check(PositiveCount(kMaxThreads))->capture_default_str();
  cmd->add_option("--devices", o.devices,
                  "cpu:N: split the machine into N CPU devices; gpu:N: the model on the GPU, "
                  "input and checkpoints on the CPU")
      ->check(DevicesCheck())->capture_default_str();
  cmd->add_option("--placer", o.placer,
                  "Placer for --devices: single, round_robin, random, greedy, heft");
  cmd->add_flag("--no-default-passes{false}", o.default_passes,
                "Skip the default graph passes (materialize_shapes, identity_removal, "
                "constant_folding), run only --passes");
  cmd->add_option("--passes", o.passes,
                  "Graph passes after the default ones: cse, constant_folding, materialize_shapes, "
                  "identity_removal, alap_recv, compression")
      ->delimiter(',')->check(GraphPassCheck());
  cmd->add_option("--placer-seed", o.placer_seed,
                  "Seed of --placer random (the same node on the same device as flowbench sim "
                  "--placer-seed)")
      ->check(IntRange(0, INT64_MAX))->capture_default_str();
  cmd->add_option("--compression", f->compression,
                  "on: lossy 16-bit cross-device transfers (--passes compression, whitepaper "
                  "5.5), as flowbench sim --compression on")
      ->check(CLI::IsMember({"on", "off"}))->capture_default_str();
  cmd->add_option("--blas-threads", f->blas_threads,
                  "Threads OpenBLAS uses per call (1: parallelism from the executor only)")
      ->check(PositiveCount(kMaxThreads))->capture_default_str();
  cmd->add_option("--checkpoint-dir", o.checkpoint_dir, "Directory for checkpoints");
  cmd->add_option("--checkpoint-every", f->checkpoint_every,
                  "Checkpoint every N steps (500) or N seconds (30s)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            auto every = experiments::ParseCheckpointEvery(text);
            if (!every.ok()) return every.status().message();
            if (every->steps > kMaxSteps || every->seconds > 1e9)
              return fmt::format("at most {} steps or 1e9 seconds, got '{}'", kMaxSteps, text);
            return "";
          },
          "N or Ns"))
      ->capture_default_str();
  cmd->add_option("--keep-checkpoints,--keep", o.keep_checkpoints, "Newest checkpoints kept")
      ->check(PositiveCount(kMaxSteps))->capture_default_str();
  cmd->add_flag("--resume", o.resume, "Continue from the newest checkpoint in --checkpoint-dir");
  cmd->add_option("--trace", o.trace_path, "Write an HDF5 trace of the first steps (FILE.h5)")
      ->check(OutputFileCheck());
  cmd->add_option("--trace-steps", o.trace_steps, "Steps traced node by node")
      ->check(IntRange(0, kMaxSteps))->capture_default_str();
  cmd->add_option("--metrics-json", f->metrics_json, "Write the run's metrics as JSON")
      ->check(OutputFileCheck());
  cmd->callback([f]() {
    Status s = RunTrain(*f);
    if (!s.ok()) Fail("train", s);
  });
}

FB_REGISTER_COMMAND("train", Setup);

}  // namespace
}  // namespace fb::apps
