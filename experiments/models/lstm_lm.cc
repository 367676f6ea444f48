#include "experiments/models/lstm_lm.h"

#include <chrono>
#include <cmath>
#include <ostream>
#include <random>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "engine/client/array_ops.h"
#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"
#include "engine/trace/trace_writer.h"
#include "experiments/models/lstm_cell.h"

namespace fb::experiments {

namespace {

// A float Variable of `shape` with an Assign initializer: uniform in [-scale, scale), or zeros.
Output Weight(const Scope& s, const std::string& name, const TensorShape& shape, double scale,
              std::mt19937_64* rng, std::vector<Output>* inits) {
  Tensor value(DataType::kFloat, shape);
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < value.NumElements(); ++i)
    value.data<float>()[i] = scale > 0 ? dist(*rng) : 0.0f;
  Output var = ops::Variable(s.WithOpName(name), shape, DataType::kFloat);
  inits->push_back(ops::Assign(s.WithOpName(name + "/init"), var, ops::Const(s, value)));
  return var;
}

struct LstmWeights {
  Output w, b, w_out, b_out;
};

// One time step: returns (h', c', summed cross-entropy of predicting y from h').
std::vector<Output> LstmStep(const Scope& s, const LstmWeights& p, int vocab, Output x, Output y,
                             Output h, Output c) {
  LstmState next = LstmCell(s, LstmCellWeights{p.w, p.b}, ops::OneHot(s, x, vocab), {c, h});
  Output logits = ops::Add(s, ops::MatMul(s, next.r, p.w_out), p.b_out);
  Output xent = ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, y).loss;
  return {next.r, next.c, ops::Sum(s, xent, std::vector<int>{0})};
}

}  // namespace

LstmLmGraph BuildLstmLm(const Scope& root, int vocab, const LstmLmConfig& config) {
  LstmLmGraph m;
  const int H = config.hidden, B = config.batch;
  std::mt19937_64 rng(config.seed);
  Scope s = root.NewSubScope("lstm");
  LstmWeights p;
  const double scale = 1.0 / std::sqrt(static_cast<double>(vocab + H));
  p.w = Weight(s, "w", TensorShape{vocab + H, 4 * H}, scale, &rng, &m.initializers);
  p.b = Weight(s, "b", TensorShape{4 * H}, 0, &rng, &m.initializers);
  p.w_out = Weight(s, "w_out", TensorShape{H, vocab}, 1.0 / std::sqrt(H), &rng, &m.initializers);
  p.b_out = Weight(s, "b_out", TensorShape{vocab}, 0, &rng, &m.initializers);
  m.inputs = ops::Placeholder(root.WithOpName("inputs"), DataType::kInt32, TensorShape{-1, B});
  m.targets = ops::Placeholder(root.WithOpName("targets"), DataType::kInt32, TensorShape{-1, B});
  Output steps = ops::Gather(s, ops::Shape(s, m.inputs), ops::Const(s, int32_t{0}));
  Tensor zeros(DataType::kFloat, TensorShape{B, H});
  for (int64_t i = 0; i < zeros.NumElements(); ++i) zeros.data<float>()[i] = 0;
  auto out = ops::WhileLoop(
      s, {ops::Const(s, int32_t{0}), ops::Const(s, zeros), ops::Const(s, zeros),
          ops::Const(s, 0.0f)},
      [&](const Scope& c, const std::vector<Output>& v) { return ops::Less(c, v[0], steps); },
      [&](const Scope& b, const std::vector<Output>& v) {
        Output x = ops::Gather(b, m.inputs, v[0]);
        Output y = ops::Gather(b, m.targets, v[0]);
        std::vector<Output> step = LstmStep(b, p, vocab, x, y, v[1], v[2]);
        return std::vector<Output>{ops::Add(b, v[0], ops::Const(b, int32_t{1})), step[0], step[1],
                                   ops::Add(b, v[3], step[2])};
      });
  if (!root.ok()) return m;
  Output count = ops::Cast(s, ops::Mul(s, steps, ops::Const(s, int32_t{B})), DataType::kFloat);
  m.loss = ops::Div(root.WithOpName("loss"), out[3], count);
  std::unique_ptr<Optimizer> opt;
  const double lr = config.learning_rate;
  if (config.optimizer == "sgd") opt = std::make_unique<GradientDescentOptimizer>(lr);
  else if (config.optimizer == "momentum") opt = std::make_unique<MomentumOptimizer>(lr, 0.9);
  else opt = std::make_unique<AdamOptimizer>(lr);
  m.train = opt->Minimize(root.WithOpName("train"), m.loss, {p.w, p.b, p.w_out, p.b_out});
  for (const Output& init : opt->initializers()) m.initializers.push_back(init);
  return m;
}

namespace {

// User + system CPU seconds of this process so far (all threads).
double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(u.ru_utime) + seconds(u.ru_stime);
}

// B windows of T + 1 tokens starting at `starts`, as time-major inputs and targets [T, B].
std::pair<Tensor, Tensor> Batch(const std::vector<int32_t>& text, const std::vector<size_t>& starts,
                                int T) {
  const int B = static_cast<int>(starts.size());
  Tensor x(DataType::kInt32, TensorShape{T, B}), y(DataType::kInt32, TensorShape{T, B});
  for (int t = 0; t < T; ++t)
    for (int b = 0; b < B; ++b) {
      x.data<int32_t>()[t * B + b] = text[starts[b] + t];
      y.data<int32_t>()[t * B + b] = text[starts[b] + t + 1];
    }
  return {x, y};
}

StatusOr<double> HeldoutPerplexity(Session* session, const LstmLmGraph& m,
                                   const std::vector<int32_t>& heldout, const LstmLmConfig& c) {
  const size_t window = c.eval_seq_len + 1;
  const size_t windows = std::min<size_t>(heldout.size() / window, c.eval_batches * c.batch);
  const size_t batches = windows / c.batch;
  if (batches == 0)
    return InvalidArgument("held-out text (", heldout.size(), " chars) too short for one "
                           "evaluation batch: --batch-size ", c.batch, " windows of --eval-seq-len ",
                           c.eval_seq_len, " + 1 characters");
  double total = 0;
  for (size_t k = 0; k < batches; ++k) {
    std::vector<size_t> starts;
    for (int b = 0; b < c.batch; ++b) starts.push_back((k * c.batch + b) * window);
    auto [x, y] = Batch(heldout, starts, c.eval_seq_len);
    std::vector<Tensor> out;
    RETURN_IF_ERROR(session->Run({{m.inputs.name(), x}, {m.targets.name(), y}}, {m.loss.name()},
                                 {}, &out));
    total += out[0].scalar<float>();
  }
  return std::exp(total / static_cast<double>(batches));
}

// The optional trace of a training run: the graph, the node executions of traced steps, the
// totals and loss of every step.
class LstmTrace {
 public:
  Status Open(const LstmLmConfig& c, const Session& session) {
    if (c.trace_path.empty()) return Status::OK();
    TraceMetadata meta = c.trace_metadata;
    meta.seed = static_cast<int64_t>(c.seed);
    meta.config_json = nlohmann::json{{"model", "lstm"}, {"hidden", c.hidden},
                                      {"batch_size", c.batch}, {"seq_len", c.seq_len},
                                      {"steps", c.steps}, {"optimizer", c.optimizer},
                                      {"learning_rate", c.learning_rate},
                                      {"threads", c.threads}, {"seed", c.seed}}.dump();
    ASSIGN_OR_RETURN(writer_, TraceWriter::Create(c.trace_path, meta));
    return writer_->AddGraph(session.graph());
  }
  bool Traces(const LstmLmConfig& c, int step) const {
    return writer_ && step >= 1 && step <= c.trace_steps;
  }
  Status Record(int step, const RunMetadata& md, bool traced, double loss, int64_t start_ns) {
    if (!writer_) return Status::OK();
    if (traced) {
      RETURN_IF_ERROR(writer_->AddRunMetadata(step, md, loss));
    } else {
      StepTotals totals;
      totals.start_ns = start_ns;
      totals.end_ns = NowNs();
      totals.loss = loss;
      RETURN_IF_ERROR(writer_->AddStep(step, {}, totals));
    }
    return writer_->AddMetric(step, "loss", loss);
  }
  Status Close(int steps, double perplexity) {
    if (!writer_) return Status::OK();
    RETURN_IF_ERROR(writer_->AddMetric(steps, "heldout_perplexity", perplexity));
    return writer_->Close();
  }

 private:
  std::unique_ptr<TraceWriter> writer_;
};

// `what` in [lo, hi], or InvalidArgument naming it.
Status CheckRange(const char* what, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::OK();
  return InvalidArgument("LSTM config: ", what, " must be in [", lo, ", ", hi, "], got ", value);
}

}  // namespace

Status CheckLstmLmConfig(const LstmLmConfig& c) {
  constexpr int64_t kMaxSize = 1 << 16;
  RETURN_IF_ERROR(CheckRange("hidden", c.hidden, 1, kMaxSize));
  RETURN_IF_ERROR(CheckRange("batch", c.batch, 1, kMaxSize));
  RETURN_IF_ERROR(CheckRange("seq_len", c.seq_len, 1, kMaxSize));
  RETURN_IF_ERROR(CheckRange("eval_seq_len", c.eval_seq_len, 1, kMaxSize));
  RETURN_IF_ERROR(CheckRange("eval_batches", c.eval_batches, 1, kMaxSize));
  RETURN_IF_ERROR(CheckRange("steps", c.steps, 1, 1'000'000'000));
  RETURN_IF_ERROR(CheckRange("threads", c.threads, 1, 256));
  RETURN_IF_ERROR(CheckRange("trace_steps", c.trace_steps, 0, 1'000'000'000));
  if (!std::isfinite(c.learning_rate) || c.learning_rate <= 0)
    return InvalidArgument("LSTM config: learning_rate must be a finite number > 0, got ",
                           c.learning_rate);
  if (c.optimizer != "sgd" && c.optimizer != "momentum" && c.optimizer != "adam")
    return InvalidArgument("LSTM config: optimizer must be sgd, momentum or adam, got '",
                           c.optimizer, "'");
  return Status::OK();
}

StatusOr<LstmLmResult> TrainLstmLm(const LstmLmConfig& c, const datasets::TextCorpus& corpus,
                                   std::ostream* log) {
  RETURN_IF_ERROR(CheckLstmLmConfig(c));
  LstmLmResult r;
  r.vocab = datasets::kTextVocabSize;
  r.train_chars = static_cast<int64_t>(corpus.train.size());
  r.heldout_chars = static_cast<int64_t>(corpus.heldout.size());
  r.unigram_perplexity = datasets::UnigramPerplexity(corpus.train, corpus.heldout, r.vocab);
  if (corpus.train.size() <= static_cast<size_t>(c.seq_len + 1))
    return InvalidArgument("training text (", corpus.train.size(), " chars) shorter than a "
                           "window of --seq-len ", c.seq_len, " + 1 characters");
  Scope root = Scope::NewRootScope();
  LstmLmGraph m = BuildLstmLm(root, r.vocab, c);
  RETURN_IF_ERROR(root.status());
  SessionOptions opts;
  opts.device_options.threads_per_cpu = c.threads;
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(opts));
  RETURN_IF_ERROR(session->Extend(root.ToGraphDef()));
  std::vector<std::string> inits;
  for (const Output& o : m.initializers) inits.push_back(o.node()->name());
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session->Run({}, {}, inits, &out));
  ASSIGN_OR_RETURN(r.heldout_perplexity_before, HeldoutPerplexity(session.get(), m, corpus.heldout, c));
  LstmTrace trace;
  RETURN_IF_ERROR(trace.Open(c, *session));
  std::mt19937_64 rng(c.seed);
  std::uniform_int_distribution<size_t> start(0, corpus.train.size() - c.seq_len - 2);
  auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = ProcessCpuSeconds();
  for (int step = 0; step < c.steps; ++step) {
    std::vector<size_t> starts;
    for (int b = 0; b < c.batch; ++b) starts.push_back(start(rng));
    auto [x, y] = Batch(corpus.train, starts, c.seq_len);
    RunOptions ro;
    ro.trace = trace.Traces(c, step);
    RunMetadata md;
    const int64_t start_ns = NowNs();
    RETURN_IF_ERROR(session->Run(ro, {{m.inputs.name(), x}, {m.targets.name(), y}},
                                 {m.loss.name()}, {m.train->name()}, &out, &md));
    r.step_ms.push_back((NowNs() - start_ns) / 1e6);
    double loss = out[0].scalar<float>();
    RETURN_IF_ERROR(trace.Record(step, md, ro.trace, loss, start_ns));
    if (step == 0) r.first_loss = loss;
    r.last_loss = loss;
    if (log && (step % 50 == 0 || step == c.steps - 1))
      *log << "step " << step << " loss " << loss << " nats/char\n" << std::flush;
  }
  r.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.train_cpu_seconds = ProcessCpuSeconds() - cpu0;
  ASSIGN_OR_RETURN(r.heldout_perplexity, HeldoutPerplexity(session.get(), m, corpus.heldout, c));
  RETURN_IF_ERROR(trace.Close(c.steps, r.heldout_perplexity));
  return r;
}

StatusOr<LstmLmResult> TrainLstmLm(const LstmLmConfig& config, std::ostream* log) {
  ASSIGN_OR_RETURN(datasets::TextCorpus corpus, datasets::ReadTextCorpus(config.corpus_dir));
  return TrainLstmLm(config, corpus, log);
}

}  // namespace fb::experiments
