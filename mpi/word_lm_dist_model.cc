#include "mpi/word_lm_dist_model.h"

#include <algorithm>
#include <cmath>

#include "experiments/models/layers.h"
#include "experiments/models/lstm_lm_word.h"
#include "experiments/models/models.h"
#include "mpi/dist_model.h"

namespace fb::mpi {

namespace {

// SplitMix64: a counter-based generator, so any (step, shard, row, position) token is computed
// directly, identically on every run.
uint64_t Mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Token of the log-uniform distribution over [0, V): P(k) = log((k + 2) / (k + 1)) / log(V + 1),
// as TensorFlow's LogUniformCandidateSampler (floor(exp(u log(V + 1))) - 1).
int32_t LogUniformToken(uint64_t bits, int64_t vocab) {
  const double u = static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  const int64_t k = static_cast<int64_t>(std::exp(u * std::log(vocab + 1.0))) - 1;
  return static_cast<int32_t>(std::clamp<int64_t>(k, 0, vocab - 1));
}

class WordLmDistModel : public DistModel {
 public:
  WordLmDistModel(experiments::ModelOptions options, int64_t seed)
      : o_(std::move(options)), seed_(seed) {}

  ModelFns Fns() const override {
    ModelFns fns;
    fns.variables = [this](const Scope& s) {
      // The Variable specs from a model built in a scratch graph, then the same Variables (names,
      // shapes, initial values) under `s`.
      Scope scratch = Scope::NewRootScope();
      experiments::VariableStore probe(o_.seed);
      experiments::Model m;
      auto built = experiments::BuildWordLm(scratch, o_, &probe, &m);
      if (!built.ok()) s.UpdateStatus(built.status());
      experiments::VariableStore store(o_.seed);
      s.UpdateStatus(store.CreateFromSpecs(s, probe.specs()));
      return ModelVariables{store.variables(), store.initializers(), {}};
    };
    fns.loss = [this](const Scope& s, const ModelVariables& vars) -> ReplicaOutputs {
      experiments::VariableStore store = experiments::VariableStore::Reusing(vars.trainable);
      experiments::Model m;
      auto loss = experiments::BuildWordLm(s, o_, &store, &m);
      if (!loss.ok()) {
        s.UpdateStatus(loss.status());
        return Output();
      }
      return *loss;
    };
    return fns;
  }

  Feeds ReplicaFeeds(int replica, int64_t step, int shard, int, int batch) const override {
    return Tokens(replica, static_cast<uint64_t>(step) * 0x10001ull + static_cast<uint64_t>(shard),
                  batch);
  }

  StatusOr<std::map<std::string, double>> Evaluate(const RunFn& run,
                                                   const std::vector<std::string>&) const override {
    std::vector<Tensor> out;
    // The held-out batch: a stream no training step reads (steps are < 2^40).
    RETURN_IF_ERROR(run(Tokens(0, ~uint64_t{0}, static_cast<int>(o_.batch_size)),
                        {ReplicaPrefix(0) + "/loss"}, {}, &out));
    return std::map<std::string, double>{{"loss", out[0].data<float>()[0]}};
  }

 private:
  // Feeds "replica_<r>/input/images" and ".../labels", int32 [batch, T], of token stream `stream`.
  Feeds Tokens(int replica, uint64_t stream, int batch) const {
    const int64_t T = o_.word_lm.num_steps, V = o_.word_lm.vocab_size;
    Tensor ids(DataType::kInt32, TensorShape{batch, T});
    Tensor labels(DataType::kInt32, TensorShape{batch, T});
    int32_t* id = ids.data<int32_t>();
    int32_t* label = labels.data<int32_t>();
    const uint64_t base = Mix(Mix(static_cast<uint64_t>(seed_)) ^ stream);
    for (int64_t b = 0; b < batch; ++b) {
      auto token = [&](int64_t t) {
        return LogUniformToken(Mix(base + static_cast<uint64_t>(b * (T + 1) + t)), V);
      };
      for (int64_t t = 0; t < T; ++t) {
        id[b * T + t] = token(t);
        label[b * T + t] = token(t + 1);
      }
    }
    const std::string p = ReplicaPrefix(replica) + "/input/";
    return {{p + "images", ids}, {p + "labels", labels}};
  }

  experiments::ModelOptions o_;
  int64_t seed_;
};

}  // namespace

bool IsWordLmDistModel(const std::string& name) {
  return name == "lstm_lm_word" || name == "lstm_lm_word_sampled";
}

StatusOr<std::unique_ptr<DistModel>> MakeWordLmDistModel(const std::string& name,
                                                         const WordLmDistOptions& options,
                                                         int64_t seed) {
  if (!IsWordLmDistModel(name)) {
    return InvalidArgument("dist-train: '", name,
                           "' is not a word language model (lstm_lm_word, lstm_lm_word_sampled)");
  }
  experiments::ModelOptions o;
  o.seed = seed;
  o.batch_size = options.batch_size;
  o.word_lm.vocab_size = options.vocab_size;
  o.word_lm.num_steps = options.num_steps;
  o.word_lm.unroll = true;  // the exported step has no loops: `flowbench sim` replays it as is
  if (name == "lstm_lm_word_sampled") {
    o.word_lm.softmax = "sampled";
    o.word_lm.num_sampled = std::min<int64_t>(512, options.vocab_size);
  }
  // The model's own checks (sizes in range), before any graph is built on the cluster.
  Scope probe = Scope::NewRootScope();
  experiments::VariableStore vars(seed);
  experiments::Model m;
  RETURN_IF_ERROR(experiments::BuildWordLm(probe, o, &vars, &m).status());
  return std::unique_ptr<DistModel>(new WordLmDistModel(std::move(o), seed));
}

}  // namespace fb::mpi
