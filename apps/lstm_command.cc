// `flowbench lstm`: trains the character-level LSTM language model (experiments/lstm_lm.h,
// issue 8) on a Debian text corpus and prints held-out perplexity next to the unigram baseline.
#include <iostream>

#include <fmt/format.h>

#include "apps/commands.h"
#include "experiments/lstm_lm.h"

namespace fb::apps {
namespace {

void Run(const experiments::LstmLmConfig& config) {
  auto r = experiments::TrainLstmLm(config, &std::cout);
  if (!r.ok()) return Fail("lstm", r.status());
  std::cout << fmt::format(
      "corpus {}: {} training chars, {} held-out chars, vocabulary {}\n"
      "LSTM H={} B={} T={}: {} Adam steps in {:.1f} s ({:.0f} ms/step)\n"
      "held-out perplexity: unigram baseline {:.2f}, LSTM before training {:.2f}, after {:.2f}\n",
      config.corpus_dir, r->train_chars, r->heldout_chars, r->vocab, config.hidden, config.batch,
      config.seq_len, config.steps, r->train_seconds, 1000 * r->train_seconds / config.steps,
      r->unigram_perplexity, r->heldout_perplexity_before, r->heldout_perplexity);
}

FB_REGISTER_COMMAND("lstm", [](CLI::App* app) {
  static experiments::LstmLmConfig lstm_config;
  auto* config = &lstm_config;
  auto* cmd = app->add_subcommand("lstm", "Train the char-level LSTM language model (WhileLoop)");
  cmd->add_option("--corpus", config->corpus_dir, "Directory of text files")->capture_default_str();
  cmd->add_option("--steps", config->steps, "Adam steps")->capture_default_str();
  cmd->add_option("--hidden", config->hidden, "LSTM units")->capture_default_str();
  cmd->add_option("--batch", config->batch, "Sequences per step")->capture_default_str();
  cmd->add_option("--seq-len", config->seq_len, "Time steps per training sequence")
      ->capture_default_str();
  cmd->add_option("--lr", config->learning_rate, "Adam learning rate")->capture_default_str();
  cmd->add_option("--threads", config->threads, "Inter-op threads")->capture_default_str();
  cmd->add_option("--seed", config->seed, "Seed of initial weights and batches")
      ->capture_default_str();
  cmd->callback([config]() { Run(*config); });
});

}  // namespace
}  // namespace fb::apps
