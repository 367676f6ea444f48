// `flowbench benchmark`: times a model's forward pass, forward+backward pass or full training
// step on synthetic (default) or real input, in the style of tf_cnn_benchmarks
// (experiments/training/benchmark.h; docs/benchmarks.md, "flowbench benchmark").
//   flowbench benchmark --model lenet --batch-size 64 --num-batches 100 --num-warmup-batches 10
//     [--forward-only | --mode forward|forward-backward|train] --optimizer sgd --threads 2
//     [--dataset fashion-mnist] [--devices cpu:2 | gpu:1] [--trace out/b.h5] [--metrics-json out/b.json]
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "apps/benchmark_report.h"
#include "apps/command_files.h"
#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "apps/train_progress.h"
#include "datasets/fashion_mnist.h"
#include "kernels/cpu/matmul.h"

namespace fb::apps {
namespace {

struct BenchmarkFlags {
  BenchmarkRunInfo info;
  std::string mode = "train";
  bool forward_only = false;
  std::string dataset = "synthetic";
  std::string metrics_json;
  bool list_models = false;
};

// "synthetic" (null), "fashion-mnist" (the Debian package's directory) or a directory of
// MNIST-format IDX files: their training split, which must fit the model (errors name the flag).
StatusOr<std::shared_ptr<const datasets::Dataset>> LoadDataset(const std::string& name,
                                                               const std::string& model,
                                                               int64_t batch_size) {
  if (name == "synthetic") return std::shared_ptr<const datasets::Dataset>();
  const std::string dir = name == "fashion-mnist" ? datasets::kFashionMnistDir : name;
  auto d = datasets::LoadMnistFormat(dir, datasets::Split::kTrain, name);
  if (!d.ok()) return d.status().WithPrefix("--dataset " + name + ": ");
  Status fits = experiments::CheckDatasetFitsModel(model, **d, batch_size);
  if (!fits.ok()) return fits.WithPrefix("--dataset " + name + ": ");
  return d;
}

// Prints the header once the model is built and a progress bar per phase.
experiments::BenchmarkCallbacks PrintingCallbacks(const BenchmarkRunInfo& info,
                                                  TrainProgress* progress) {
  auto phase = std::make_shared<int>(-1);
  experiments::BenchmarkCallbacks c;
  c.built = [&info](const experiments::BenchmarkResult& r) {
    std::fputs(BenchmarkHeader(info, r).c_str(), stdout);
    std::fflush(stdout);
  };
  c.step = [progress, phase](experiments::BenchmarkPhase p, const experiments::StepProgress& s) {
    if (static_cast<int>(p) != *phase) {
      progress->Finish();
      progress->SetPhase(experiments::BenchmarkPhaseName(p));
      *phase = static_cast<int>(p);
    }
    progress->Update(s);
  };
  return c;
}

Status RunBenchmarkCommand(BenchmarkFlags& f) {
  if (f.list_models) {
    for (const std::string& name : experiments::ModelNames()) std::printf("%s\n", name.c_str());
    return Status::OK();
  }
  experiments::BenchmarkOptions& o = f.info.options;
  ASSIGN_OR_RETURN(o.mode, experiments::ParseBenchmarkMode(f.forward_only ? "forward" : f.mode));
  ASSIGN_OR_RETURN(o.dataset, LoadDataset(f.dataset, o.model, o.model_options.batch_size));
  if (!o.trace_path.empty()) o.trace_metadata = RealRunTraceMetadata(o.trace_path);
  SetBlasThreads(f.info.blas_threads);
  TrainProgress progress(stdout, isatty(fileno(stdout)) != 0);
  auto result = experiments::RunBenchmark(o, PrintingCallbacks(f.info, &progress));
  progress.Finish();
  RETURN_IF_ERROR(result.status());
  std::fputs(BenchmarkSummary(*result).c_str(), stdout);
  if (!o.trace_path.empty()) std::printf("trace: %s\n", o.trace_path.c_str());
  std::fflush(stdout);
  if (!f.metrics_json.empty()) {
    RETURN_IF_ERROR(WriteJsonFile(f.metrics_json, BenchmarkJson(f.info, *result)));
  }
  return Status::OK();
}

void AddModeFlags(CLI::App* cmd, BenchmarkFlags* f) {
  auto* mode = cmd->add_option("--mode", f->mode,
                               "forward (logits), forward-backward (gradients, no update) or "
                               "train (forward+backward+update)")
                   ->check(CLI::IsMember({"forward", "forward-backward", "train"}))
                   ->capture_default_str();
  cmd->add_flag("--forward-only", f->forward_only, "Time the forward pass only (--mode forward)")
      ->excludes(mode);
  auto& m = f->info.options.model_options;
  cmd->add_option("--optimizer", m.optimizer, "Update of --mode train: sgd, momentum or adam")
      ->check(CLI::IsMember({"sgd", "momentum", "adam"}))
      ->capture_default_str();
  cmd->add_option("--lr,--learning-rate", m.learning_rate, "Learning rate")
      ->check(FiniteRange(1e-12, kMaxLearningRate))
      ->capture_default_str();
  cmd->add_option("--momentum", m.momentum, "Momentum of --optimizer momentum")
      ->check(FiniteRange(0, 1))
      ->capture_default_str();
}

void Setup(CLI::App* app) {
  auto* cmd = app->add_subcommand(
      "benchmark", "Time a model's forward, forward+backward or training step (images/sec)");
  auto f = std::make_shared<BenchmarkFlags>();
  auto& o = f->info.options;
  o.model_options.optimizer = "sgd";  // tf_cnn_benchmarks' default
  cmd->add_option("--model", o.model, "A registered model (an unknown name lists them)")
      ->check(ModelCheck())
      ->capture_default_str();
  cmd->add_option("--dataset", f->dataset,
                  "synthetic (random images of the model's input shape), "
                  "fashion-mnist, or a "
                  "directory of MNIST-format IDX files")
      ->capture_default_str();
  cmd->add_option("--batch-size,--batch", o.model_options.batch_size, "Examples per step")
      ->check(PositiveCount(kMaxBatchSize))
      ->capture_default_str();
  cmd->add_option("--num-batches", o.num_batches, "Timed steps")
      ->check(PositiveCount(kMaxSteps))
      ->capture_default_str();
  cmd->add_option("--num-warmup-batches", o.num_warmup_batches, "Untimed steps before them")
      ->check(IntRange(0, kMaxSteps))
      ->capture_default_str();
  AddModeFlags(cmd, f.get());
  cmd->add_option("--seed", o.model_options.seed, "Seed of the weights and synthetic input")
      ->check(IntRange(0, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("--threads", o.threads, "CPU threads (shared among --devices)")
      ->check(PositiveCount(kMaxThreads))
      ->capture_default_str();
  cmd->add_option("--blas-threads", f->info.blas_threads,
                  "Threads OpenBLAS uses per call (1: parallelism from the "
                  "executor only)")
      ->check(PositiveCount(kMaxThreads))
      ->capture_default_str();
  cmd->add_option("--devices", o.devices,
                  "cpu:N: split the machine into N CPU devices; gpu:N: the model on the GPU, "
                  "input and feeds on the CPU")
      ->check(DevicesCheck())
      ->capture_default_str();
  cmd->add_option("--placer", o.placer,
                  "Placer for --devices: single, round_robin, random, greedy, heft");
  cmd->add_flag("--no-default-passes{false}", o.default_passes,
                "Skip the default graph passes (materialize_shapes, identity_removal, "
                "constant_folding: engine/passes/graph_pass.h), as TensorFlow without Grappler");
  cmd->add_option("--passes", o.passes,
                  "Further graph passes, comma-separated, after the defaults: e.g. "
                  "fuse_conv_bias_relu (Conv2D + BiasAdd + Relu as one kernel)")
      ->delimiter(',')->check(GraphPassCheck());
  cmd->add_option("--trace", o.trace_path,
                  "Write an HDF5 trace (FILE.h5): every timed step, then "
                  "--trace-steps traced "
                  "node by node")
      ->check(OutputFileCheck());
  cmd->add_option("--trace-steps", o.trace_steps, "Steps traced node by node after timing")
      ->check(IntRange(0, kMaxSteps))
      ->capture_default_str();
  cmd->add_option("--metrics-json", f->metrics_json, "Write the results as JSON")
      ->check(OutputFileCheck());
  cmd->add_flag("--list-models", f->list_models, "Print the registered models and exit");
  cmd->callback([f]() {
    if (Status s = RunBenchmarkCommand(*f); !s.ok()) Fail("benchmark", s);
  });
}

FB_REGISTER_COMMAND("benchmark", Setup);

}  // namespace
}  // namespace fb::apps
