#pragma once
// Character-level LSTM language model (issue 8; whitepaper sections 6-7 name LSTM language
// models as a flagship workload): one LSTM layer whose time steps run as a WhileLoop (4.4), so
// the graph size does not grow with the sequence length, trained with Adam through the loop's
// gradient (stacks of saved forward values, engine/client/while_gradients.cc). Held-out
// perplexity is reported against the unigram baseline of the same corpus.
//
// Layouts: inputs and targets are int32 [T, B] (time-major token ids, T free at run time);
// LSTM weights W [V + H, 4H] with gates (i, f, o, g) side by side, b [4H]; output layer
// W_out [H, V], b_out [V]. Forget-gate bias +1 (Gers et al.).
#include <iosfwd>
#include <string>
#include <vector>

#include "datasets/text_corpus.h"
#include "engine/client/scope.h"
#include "engine/trace/trace_schema.h"

namespace fb::experiments {

struct LstmLmConfig {
  std::string corpus_dir = "/usr/share/games/fortunes";
  int hidden = 128;          // H
  int batch = 32;            // B
  int seq_len = 32;          // T while training
  int eval_seq_len = 128;    // T while evaluating
  int eval_batches = 8;      // held-out windows evaluated: eval_batches * batch
  int steps = 300;           // optimizer steps
  std::string optimizer = "adam";  // sgd | momentum (0.9) | adam
  double learning_rate = 0.005;
  int threads = 2;           // inter-op threads of the CPU device
  uint64_t seed = 1;
  std::string trace_path;    // "" : no trace; else an HDF5 trace (engine/trace) of the run
  int trace_steps = 20;      // training steps traced node by node (the first, after step 0)
  TraceMetadata trace_metadata;
};

// InvalidArgument naming the field ("batch must be in [1, 65536], got 0") when a size or
// count is out of range or the learning rate is not a finite positive number.
Status CheckLstmLmConfig(const LstmLmConfig& config);

struct LstmLmGraph {
  Output inputs, targets;  // placeholders, int32 [T, B]
  Output loss;             // mean cross-entropy per character (nats), scalar
  Node* train = nullptr;   // one Adam step
  std::vector<Output> initializers;
};

// Builds the model in `root` for vocabulary size `vocab`. Errors stick to the scope.
LstmLmGraph BuildLstmLm(const Scope& root, int vocab, const LstmLmConfig& config);

struct LstmLmResult {
  int vocab = 0;
  int64_t train_chars = 0, heldout_chars = 0;
  double unigram_perplexity = 0;
  double heldout_perplexity_before = 0, heldout_perplexity = 0;
  double first_loss = 0, last_loss = 0;  // training loss (nats/char) of the first/last step
  double train_seconds = 0;
  double train_cpu_seconds = 0;  // user + system CPU time of the process while training
  std::vector<double> step_ms;  // wall time of each training step's Session::Run
};

// Reads the corpus, trains for config.steps steps on random windows, evaluates held-out
// perplexity before and after. `log` (may be null) gets progress lines. Errors: those of
// CheckLstmLmConfig first, then of the corpus, the Session and the trace (naming the file).
StatusOr<LstmLmResult> TrainLstmLm(const LstmLmConfig& config, std::ostream* log);
// The same on an already loaded corpus (tests use a tiny synthetic one).
StatusOr<LstmLmResult> TrainLstmLm(const LstmLmConfig& config, const datasets::TextCorpus& corpus,
                                   std::ostream* log);

}  // namespace fb::experiments
