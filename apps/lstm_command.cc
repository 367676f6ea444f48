// `flowbench lstm`: trains the character-level LSTM language model (experiments/models/lstm_lm.h) on a
// Debian text corpus and prints held-out perplexity next to the unigram baseline.
//   flowbench lstm --steps 300 --batch-size 32 --seq-len 32 --hidden 128 --optimizer adam
//     --lr 0.005 --threads 2 --blas-threads 1 --seed 1 --trace out/lstm.h5
//     --metrics-json out/lstm-metrics.json
#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apps/command_files.h"
#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "experiments/models/lstm_lm.h"
#include "kernels/cpu/matmul.h"

namespace fb::apps {
namespace {

struct LstmFlags {
  experiments::LstmLmConfig config;
  std::string metrics_json;
  int blas_threads = 1;
};

Status WriteMetricsJson(const std::string& path, const LstmFlags& f,
                        const experiments::LstmLmResult& r) {
  const experiments::LstmLmConfig& c = f.config;
  std::vector<double> ms = r.step_ms;
  double median = 0;
  if (!ms.empty()) {
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    median = ms[ms.size() / 2];
  }
  nlohmann::json j = {{"model", "lstm"}, {"corpus", c.corpus_dir}, {"steps", c.steps},
                      {"batch_size", c.batch}, {"seq_len", c.seq_len}, {"hidden", c.hidden},
                      {"optimizer", c.optimizer}, {"learning_rate", c.learning_rate},
                      {"threads", c.threads}, {"blas_threads", f.blas_threads},
                      {"seed", c.seed}, {"vocab", r.vocab},
                      {"first_loss", r.first_loss}, {"final_loss", r.last_loss},
                      {"unigram_perplexity", r.unigram_perplexity},
                      {"heldout_perplexity_before", r.heldout_perplexity_before},
                      {"heldout_perplexity", r.heldout_perplexity},
                      {"ms_per_step_median", median}, {"train_s", r.train_seconds},
                      {"train_cpu_s", r.train_cpu_seconds}};
  return WriteJsonFile(path, j);
}

Status Run(LstmFlags& f) {
  experiments::LstmLmConfig& config = f.config;
  if (!config.trace_path.empty()) config.trace_metadata = RealRunTraceMetadata(config.trace_path);
  SetBlasThreads(f.blas_threads);
  ASSIGN_OR_RETURN(experiments::LstmLmResult r, experiments::TrainLstmLm(config, &std::cout));
  std::cout << fmt::format(
      "corpus {}: {} training chars, {} held-out chars, vocabulary {}\n"
      "LSTM H={} B={} T={}: {} {} steps in {:.1f} s ({:.0f} ms/step)\n"
      "held-out perplexity: unigram baseline {:.2f}, LSTM before training {:.2f}, after {:.2f}\n",
      config.corpus_dir, r.train_chars, r.heldout_chars, r.vocab, config.hidden, config.batch,
      config.seq_len, config.steps, config.optimizer, r.train_seconds,
      1000 * r.train_seconds / config.steps, r.unigram_perplexity, r.heldout_perplexity_before,
      r.heldout_perplexity);
  if (!config.trace_path.empty()) std::cout << "trace: " << config.trace_path << "\n";
  if (!f.metrics_json.empty()) RETURN_IF_ERROR(WriteMetricsJson(f.metrics_json, f, r));
  return Status::OK();
}

FB_REGISTER_COMMAND("lstm", [](CLI::App* app) {
  static LstmFlags lstm_flags;
  auto* f = &lstm_flags;
  auto* config = &f->config;
  auto* cmd = app->add_subcommand("lstm", "Train the char-level LSTM language model (WhileLoop)");
  cmd->add_option("--corpus", config->corpus_dir, "Directory of text files")->capture_default_str();
  cmd->add_option("--steps", config->steps, "Optimizer steps")
      ->check(PositiveCount(kMaxSteps))->capture_default_str();
  cmd->add_option("--hidden", config->hidden, "LSTM units")
      ->check(PositiveCount(kMaxUnits))->capture_default_str();
  cmd->add_option("--batch-size,--batch", config->batch, "Sequences per step")
      ->check(PositiveCount(kMaxBatchSize))->capture_default_str();
  cmd->add_option("--seq-len", config->seq_len, "Time steps per training sequence")
      ->check(PositiveCount(kMaxSeqLen))->capture_default_str();
  cmd->add_option("--eval-seq-len", config->eval_seq_len, "Time steps per held-out sequence")
      ->check(PositiveCount(kMaxSeqLen))->capture_default_str();
  cmd->add_option("--optimizer", config->optimizer, "sgd, momentum or adam")
      ->check(CLI::IsMember({"sgd", "momentum", "adam"}))->capture_default_str();
  cmd->add_option("--lr,--learning-rate", config->learning_rate, "Learning rate")
      ->check(FiniteRange(1e-12, kMaxLearningRate))->capture_default_str();
  cmd->add_option("--threads", config->threads, "Inter-op threads")
      ->check(PositiveCount(kMaxThreads))->capture_default_str();
  cmd->add_option("--blas-threads", f->blas_threads,
                  "Threads OpenBLAS uses per call (1: parallelism from the executor only)")
      ->check(PositiveCount(kMaxThreads))->capture_default_str();
  cmd->add_option("--seed", config->seed, "Seed of initial weights and batches")
      ->check(IntRange(0, INT64_MAX))->capture_default_str();
  cmd->add_option("--trace", config->trace_path, "Write an HDF5 trace of the run (FILE.h5)")
      ->check(OutputFileCheck());
  cmd->add_option("--trace-steps", config->trace_steps, "Steps traced node by node")
      ->check(IntRange(0, kMaxSteps))->capture_default_str();
  cmd->add_option("--metrics-json", f->metrics_json, "Write the run's metrics as JSON")
      ->check(OutputFileCheck());
  cmd->callback([f]() {
    if (Status s = Run(*f); !s.ok()) Fail("lstm", s);
  });
});

}  // namespace
}  // namespace fb::apps
