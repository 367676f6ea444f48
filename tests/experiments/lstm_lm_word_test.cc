// The word LSTM language model (experiments/models/lstm_lm_word.h): parameter counts of
// LSTM-512-512 at V = 40,000 pinned to the values derived in the benchmark notes (graph building
// only); at small sizes the loss falls while training on a fixed batch with the full and the
// sampled softmax; the WhileLoop and unrolled recurrences give the same loss and gradients; the
// registry reports words per step; bad options fail with messages naming the field.
#include "experiments/models/lstm_lm_word.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>

#include "engine/runtime/session.h"
#include "experiments/models/model_graph.h"

namespace fb::experiments {
namespace {

int64_t Elements(const TensorShape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dim_sizes()) n *= d;
  return n;
}

// Parameters by the first component of the Variable name ("lstm", "embedding", "softmax").
std::map<std::string, int64_t> ParameterCounts(const Model& m) {
  std::map<std::string, int64_t> counts;
  for (const ModelVariable& v : m.variables) {
    counts[v.name.substr(0, v.name.find('/'))] += Elements(v.shape);
    counts["total"] += Elements(v.shape);
  }
  return counts;
}

TEST_CASE("lstm_lm_word has the parameters of LSTM-512-512 at 40,000 words", "[lstm_lm_word]") {
  for (const char* name : {"lstm_lm_word", "lstm_lm_word_unrolled", "lstm_lm_word_sampled"}) {
    INFO(name);
    ModelOptions o;
    o.batch_size = 4;
    auto m = BuildModel(name, o);
    INFO(m.status().ToString());
    REQUIRE(m.ok());
    std::map<std::string, int64_t> counts = ParameterCounts(*m);
    CHECK(counts["lstm"] == 2'361'344);
    CHECK(counts["embedding"] == 20'480'000);
    CHECK(counts["softmax"] == 20'520'000);
    CHECK(counts["total"] == 43'361'344);
    CHECK(counts.size() == 4);
    CHECK(m->examples_per_step == 4 * 20);
    CHECK(m->example_unit == "words");
    CHECK(m->gradients.size() == m->variables.size());
  }
}

// Small sizes: V = 50, E = C = P = 16, T = 5, batch 8.
ModelOptions Small(const std::string& softmax, bool unroll) {
  ModelOptions o;
  o.batch_size = 8;
  o.seed = 3;
  o.optimizer = "adam";
  o.learning_rate = 0.02;
  o.word_lm.vocab_size = 50;
  o.word_lm.num_steps = 5;
  o.word_lm.embedding_size = o.word_lm.lstm_cells = o.word_lm.projection_size = 16;
  o.word_lm.softmax = softmax;
  o.word_lm.num_sampled = 10;
  o.word_lm.unroll = unroll;
  return o;
}

// A learnable batch: each example follows next = (3 * id + 7) mod 50 from its own start.
std::pair<Tensor, Tensor> Batch(const ModelOptions& o) {
  const int64_t B = o.batch_size, T = o.word_lm.num_steps;
  Tensor ids(DataType::kInt32, TensorShape{B, T}), next(DataType::kInt32, TensorShape{B, T});
  for (int64_t b = 0; b < B; ++b) {
    int32_t id = static_cast<int32_t>(b * 11 % 50);
    for (int64_t t = 0; t < T; ++t) {
      ids.data<int32_t>()[b * T + t] = id;
      id = (3 * id + 7) % 50;
      next.data<int32_t>()[b * T + t] = id;
    }
  }
  return {ids, next};
}

struct Built {
  Model model;
  std::unique_ptr<Session> session;
  std::vector<Session::NamedTensor> feeds;
};

Built Build(const ModelOptions& o) {
  auto m = BuildModel("lstm_lm_word", o);
  INFO(m.status().ToString());
  REQUIRE(m.ok());
  Built b{std::move(*m), nullptr, {}};
  auto session = Session::Create(SessionOptions());
  REQUIRE(session.ok());
  b.session = std::move(*session);
  Status st = b.session->Extend(b.model.scope.ToGraphDef());
  INFO(st.ToString());
  REQUIRE(st.ok());
  std::vector<Tensor> out;
  REQUIRE(b.session->Run({}, {}, {b.model.init}, &out).ok());
  auto [ids, next] = Batch(o);
  b.feeds = {{b.model.images, ids}, {b.model.labels, next}};
  return b;
}

std::vector<Tensor> Run(Built& b, const std::vector<std::string>& fetches,
                        const std::vector<std::string>& targets = {}) {
  std::vector<Tensor> out;
  Status st = b.session->Run(b.feeds, fetches, targets, &out);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return out;
}

// Mean cross-entropy of the full softmax, from the fetched logits [B*T, V].
double FullCrossEntropy(Built& b) {
  Tensor logits = Run(b, {b.model.logits})[0];
  const Tensor& labels = b.feeds[1].second;
  const int64_t rows = logits.dim_size(0), V = logits.dim_size(1);
  double total = 0;
  for (int64_t r = 0; r < rows; ++r) {
    const float* z = logits.data<float>() + r * V;
    double max = *std::max_element(z, z + V), sum = 0;
    for (int64_t k = 0; k < V; ++k) sum += std::exp(z[k] - max);
    total += std::log(sum) + max - z[labels.data<int32_t>()[r]];
  }
  return total / static_cast<double>(rows);
}

TEST_CASE("lstm_lm_word loss falls while training with full and sampled softmax",
          "[lstm_lm_word]") {
  for (const char* softmax : {"full", "sampled"}) {
    INFO(softmax);
    Built b = Build(Small(softmax, false));
    const double before = FullCrossEntropy(b);
    CHECK(before == Approx(std::log(50.0)).epsilon(0.05));  // near uniform at initialisation
    std::vector<double> losses;
    for (int step = 0; step < 25; ++step)
      losses.push_back(Run(b, {b.model.loss}, {b.model.train_op})[0].scalar<float>());
    INFO("first loss " << losses.front() << " last " << losses.back());
    CHECK(losses.back() < 0.6 * losses.front());
    CHECK(FullCrossEntropy(b) < 0.6 * before);
    const float accuracy = Run(b, {b.model.accuracy})[0].scalar<float>();
    CHECK(accuracy > 0.2f);  // chance: 0.02
  }
}

// The same loss and weight gradients from two builds of the model with the same weights.
void CheckSameLossAndGradients(Built& first, Built& second) {
  REQUIRE(first.model.gradients.size() == second.model.gradients.size());
  std::vector<std::string> fetches = first.model.gradients;
  fetches.insert(fetches.begin(), first.model.loss);
  std::vector<Tensor> a = Run(first, fetches);
  fetches = second.model.gradients;
  fetches.insert(fetches.begin(), second.model.loss);
  std::vector<Tensor> b = Run(second, fetches);
  CHECK(a[0].scalar<float>() == Approx(b[0].scalar<float>()).epsilon(1e-5));
  for (size_t i = 1; i < a.size(); ++i) {
    INFO("gradient of " << first.model.variables[i - 1].name);
    REQUIRE(a[i].shape() == b[i].shape());
    double max_abs = 0, max_diff = 0;
    for (int64_t k = 0; k < a[i].NumElements(); ++k) {
      max_abs = std::max(max_abs, std::abs(double(a[i].data<float>()[k])));
      max_diff = std::max(max_diff, std::abs(double(a[i].data<float>()[k]) - b[i].data<float>()[k]));
    }
    CHECK(max_abs > 0);
    CHECK(max_diff <= 1e-5 * max_abs + 1e-7);
  }
}

TEST_CASE("lstm_lm_word WhileLoop and unrolled variants agree", "[lstm_lm_word]") {
  for (const char* softmax : {"full", "sampled"}) {
    for (const char* cell : {"block", "basic"}) {
      INFO(softmax << " softmax, " << cell << " cell");
      ModelOptions looped = Small(softmax, false), unrolled = Small(softmax, true);
      looped.word_lm.cell = unrolled.word_lm.cell = cell;
      Built a = Build(looped), b = Build(unrolled);
      CheckSameLossAndGradients(a, b);
    }
  }
}

TEST_CASE("lstm_lm_word fused LSTMBlockCell and basic-op cell agree", "[lstm_lm_word]") {
  for (bool unroll : {false, true}) {
    INFO("unroll " << unroll);
    ModelOptions block = Small("full", unroll), basic = Small("full", unroll);
    basic.word_lm.cell = "basic";
    Built a = Build(block), b = Build(basic);
    int fused = 0;
    for (Node* n : a.model.scope.graph()->nodes()) fused += n->op() == "LSTMBlockCell";
    CHECK(fused == (unroll ? 5 : 1));  // num_steps copies, or one in the loop body
    CheckSameLossAndGradients(a, b);
  }
}

TEST_CASE("lstm_lm_word without a projection", "[lstm_lm_word]") {
  ModelOptions o = Small("full", false);
  o.word_lm.projection_size = 0;
  o.word_lm.lstm_cells = 12;
  auto m = BuildModel("lstm_lm_word", o);
  REQUIRE(m.ok());
  // W [E + C, 4C] + b [4C]: (16 + 12) * 48 + 48; softmax [V, C] + [V].
  std::map<std::string, int64_t> counts = ParameterCounts(*m);
  CHECK(counts["lstm"] == 28 * 48 + 48);
  CHECK(counts["softmax"] == 50 * 12 + 50);
}

TEST_CASE("lstm_lm_word rejects bad options with a message", "[lstm_lm_word]") {
  auto error = [](ModelOptions o) {
    auto m = BuildModel("lstm_lm_word", o);
    REQUIRE_FALSE(m.ok());
    return m.status().message();
  };
  ModelOptions o = Small("sampled", false);
  o.word_lm.num_sampled = 51;
  CHECK_THAT(error(o), Catch::Contains(
                           "word_lm.num_sampled must be in [1, word_lm.vocab_size = 50], got 51"));
  o = Small("softmax", false);
  CHECK_THAT(error(o),
             Catch::Contains("word_lm.softmax must be 'full' or 'sampled', got 'softmax'"));
  o = Small("full", false);
  o.word_lm.cell = "gru";
  CHECK_THAT(error(o), Catch::Contains("word_lm.cell must be 'block' or 'basic', got 'gru'"));
  o = Small("full", false);
  o.word_lm.num_steps = 0;
  CHECK_THAT(error(o), Catch::Contains("word_lm.num_steps must be in [1, 65536], got 0"));
  o = Small("full", false);
  o.word_lm.vocab_size = 1;
  CHECK_THAT(error(o), Catch::Contains("word_lm.vocab_size must be in"));
  o = Small("full", false);
  o.dataset = "fashion-mnist/train";
  CHECK_THAT(error(o), Catch::Contains("cannot read the image dataset 'fashion-mnist/train' "
                                       "(ModelOptions.dataset must be empty)"));
  auto forward = LookupForward("lstm_lm_word");
  REQUIRE_FALSE(forward.ok());
  CHECK_THAT(forward.status().message(),
             Catch::Contains("'lstm_lm_word' is not an image classifier"));
}

TEST_CASE("lstm_lm_word builds as a training graph for the placers and the simulator",
          "[lstm_lm_word]") {
  for (const char* name : {"lstm_lm_word", "lstm_lm_word_unrolled"}) {
    INFO(name);
    auto g = BuildModelGraph(name, 2);
    INFO(g.status().ToString());
    REQUIRE(g.ok());
    CHECK(g->feed_shapes.at("input/images") == TensorShape({2, 20}));
  }
}

}  // namespace
}  // namespace fb::experiments
