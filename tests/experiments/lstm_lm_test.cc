// The LSTM language model (issue 8) learns a periodic text far below its unigram perplexity in
// a few dozen steps; the WhileLoop over time steps and its gradient make this possible.
#include "experiments/models/lstm_lm.h"
#include "tests/test_util.h"

namespace fb::experiments {
namespace {

TEST_CASE("LSTM LM learns a periodic text", "[lstm]") {
  datasets::TextCorpus corpus;
  const std::string period = "the cat sat on the mat.\n";
  for (int i = 0; i < 200; ++i)
    for (char c : period) corpus.train.push_back(datasets::CharToId(c));
  for (int i = 0; i < 40; ++i)
    for (char c : period) corpus.heldout.push_back(datasets::CharToId(c));
  LstmLmConfig config;
  config.hidden = 32;
  config.batch = 8;
  config.seq_len = 16;
  config.eval_seq_len = 32;
  config.eval_batches = 2;
  config.steps = 60;
  config.learning_rate = 0.02;
  auto r = TrainLstmLm(config, corpus, nullptr);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  INFO("unigram " << r->unigram_perplexity << ", before " << r->heldout_perplexity_before
                  << ", after " << r->heldout_perplexity << ", loss " << r->first_loss << " -> "
                  << r->last_loss);
  CHECK(r->heldout_perplexity_before > 50);  // about the vocabulary size when untrained
  CHECK(r->heldout_perplexity < r->unigram_perplexity / 2);
  CHECK(r->last_loss < r->first_loss);
}

// `flowbench lstm --corpus` with a short text: "shorter than a window" and "too short for one
// evaluation batch" named no flag to change.
TEST_CASE("LSTM LM names the flags a corpus is too short for", "[lstm][errors]") {
  datasets::TextCorpus corpus;
  corpus.train.assign(100, datasets::CharToId('a'));
  corpus.heldout.assign(20, datasets::CharToId('a'));
  LstmLmConfig config;
  config.hidden = 4;
  config.batch = 2;
  config.seq_len = 200;
  config.eval_seq_len = 32;
  config.steps = 1;
  auto r = TrainLstmLm(config, corpus, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(),
             Catch::Contains("training text (100 chars) shorter than a window of --seq-len 200"));
  config.seq_len = 8;
  r = TrainLstmLm(config, corpus, nullptr);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(),
             Catch::Contains("held-out text (20 chars) too short for one evaluation batch: "
                             "--batch-size 2 windows of --eval-seq-len 32 + 1 characters"));
}

}  // namespace
}  // namespace fb::experiments
