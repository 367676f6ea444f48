#include "experiments/models/lstm_lm_word.h"

#include "engine/client/array_ops.h"
#include "engine/client/control_flow.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/sampled_softmax.h"
#include "engine/client/state_ops.h"
#include "experiments/models/layers.h"
#include "experiments/models/lstm_cell.h"

namespace fb::experiments {

namespace {

// Sizes are capped so that products (V * P, B * T * P) stay far from int64 overflow.
constexpr int64_t kMaxSize = int64_t{1} << 24;

Status CheckSize(const char* field, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return Status::OK();
  return InvalidArgument("lstm_lm_word: ", field, " must be in [", lo, ", ", hi, "], got ", value);
}

Status CheckOptions(const ModelOptions& o) {
  const WordLmOptions& w = o.word_lm;
  if (!o.dataset.empty()) {
    return InvalidArgument(
        "lstm_lm_word is fed token ids through the Placeholders "
        "input/images and input/labels and cannot read the image dataset '",
        o.dataset, "' (ModelOptions.dataset must be empty)");
  }
  RETURN_IF_ERROR(CheckSize("batch_size", o.batch_size, 1, kMaxSize));
  RETURN_IF_ERROR(CheckSize("word_lm.vocab_size", w.vocab_size, 2, kMaxSize));
  RETURN_IF_ERROR(CheckSize("word_lm.num_steps", w.num_steps, 1, 1 << 16));
  RETURN_IF_ERROR(CheckSize("word_lm.embedding_size", w.embedding_size, 1, 1 << 16));
  RETURN_IF_ERROR(CheckSize("word_lm.lstm_cells", w.lstm_cells, 1, 1 << 16));
  RETURN_IF_ERROR(CheckSize("word_lm.projection_size", w.projection_size, 0, 1 << 16));
  if (w.softmax == "sampled") {
    if (w.num_sampled < 1 || w.num_sampled > w.vocab_size) {
      return InvalidArgument(
          "lstm_lm_word: word_lm.num_sampled must be in [1, "
          "word_lm.vocab_size = ",
          w.vocab_size, "], got ", w.num_sampled);
    }
  } else if (w.softmax != "full") {
    return InvalidArgument("lstm_lm_word: word_lm.softmax must be 'full' or 'sampled', got '",
                           w.softmax, "'");
  }
  if (w.cell != "block" && w.cell != "basic") {
    return InvalidArgument("lstm_lm_word: word_lm.cell must be 'block' or 'basic', got '", w.cell,
                           "'");
  }
  return Status::OK();
}

struct WordLmWeights {
  Output embedding;  // [V, E]
  LstmCellWeights lstm;
  Output softmax_w;  // [V, P]
  Output softmax_b;  // [V]
};

// Every Variable, in a fixed order (so both recurrence variants get the same initial values).
WordLmWeights CreateWeights(const Scope& root, const WordLmOptions& w, VariableStore* vars) {
  const int64_t V = w.vocab_size, E = w.embedding_size, C = w.lstm_cells;
  const int64_t P = w.projection_size > 0 ? w.projection_size : C;
  const InitKind glorot = InitKind::kGlorotUniform;
  WordLmWeights p;
  p.embedding = vars->Weight(root.NewSubScope("embedding"), "weights", {V, E}, V, E, glorot);
  Scope ls = root.NewSubScope("lstm");
  p.lstm.w = vars->Weight(ls, "weights", {E + P, 4 * C}, E + P, 4 * C, glorot);
  p.lstm.b = vars->Bias(ls, "biases", {4 * C});
  if (w.projection_size > 0) p.lstm.w_proj = vars->Weight(ls, "projection", {C, P}, C, P, glorot);
  if (w.cell == "block") p.lstm.peephole_zeros = FusedCellZeros(ls, C);
  Scope ss = root.NewSubScope("softmax");
  p.softmax_w = vars->Weight(ss, "weights", {V, P}, P, V, glorot);
  p.softmax_b = vars->Bias(ss, "biases", {V});
  return p;
}

Output Zeros(const Scope& s, const std::vector<int64_t>& shape) {
  return ops::Fill(s, ops::IntConst(s, shape), ops::Const(s, 0.0f));
}

// The T steps as copies of the cell: x [T, B, E] -> outputs [T, B, P].
Output UnrolledLstm(const Scope& s, const LstmCellWeights& p, Output x, int64_t T,
                    LstmState state) {
  std::vector<Output> xs = ops::Unpack(s, x, static_cast<int>(T), 0);
  if (static_cast<int64_t>(xs.size()) != T) return Output();  // the error is in the Scope
  std::vector<Output> outputs;
  for (int64_t t = 0; t < T; ++t) {
    state = LstmCell(s.NewSubScope("step_" + std::to_string(t)), p, xs[t], state);
    outputs.push_back(state.r);
  }
  return ops::Pack(s, outputs, 0);
}

// The T steps as one WhileLoop over (t, c, r, outputs): x [T, B, E] -> outputs [T, B, P], where
// iteration t adds onehot(t) [T, 1, 1] * r_t [1, B, P] (no TensorArray: a loop variable of fixed
// shape, O(T * B * P) per step against the cell's O(B * (E + P) * 4C)).
Output LoopedLstm(const Scope& s, const LstmCellWeights& p, Output x, int64_t T,
                  const LstmState& initial, int64_t B, int64_t P) {
  std::vector<Output> out = ops::WhileLoop(
      s, {ops::Const(s, int32_t{0}), initial.c, initial.r, Zeros(s, {T, B, P})},
      [T](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const(c, static_cast<int32_t>(T)));
      },
      [&](const Scope& b, const std::vector<Output>& v) {
        LstmState next = LstmCell(b, p, ops::Gather(b, x, v[0]), {v[1], v[2]});
        Output at_t = ops::Reshape(b, ops::OneHot(b, v[0], T), {T, 1, 1});
        Output outputs = ops::Add(b, v[3], ops::Mul(b, at_t, ops::ExpandDims(b, next.r, 0)));
        return std::vector<Output>{ops::Add(b, v[0], ops::Const(b, int32_t{1})), next.c, next.r,
                                   outputs};
      });
  return out.size() == 4 ? out[3] : Output();
}

// Mean cross-entropy per token of outputs [B*T, P] against labels int32 [B*T]: full softmax over
// `logits`, or sampled softmax.
Output TokenLoss(const Scope& root, const ModelOptions& o, const WordLmWeights& p, Output outputs,
                 Output logits, Output labels) {
  Scope s = root.NewSubScope("xent");
  Output per_token;
  if (o.word_lm.softmax == "sampled") {
    ops::SampledSoftmaxOptions so;
    so.num_sampled = o.word_lm.num_sampled;
    so.num_classes = o.word_lm.vocab_size;
    so.seed = o.seed;
    so.seed2 = 1;
    Output true_classes = ops::ExpandDims(s, ops::Cast(s, labels, DataType::kInt64), 1);
    per_token = ops::SampledSoftmaxLoss(s, p.softmax_w, p.softmax_b, true_classes, outputs, so);
  } else {
    per_token = ops::SparseSoftmaxCrossEntropyWithLogits(s, logits, labels).loss;
  }
  return ops::Mean(root.WithOpName("loss"), per_token, std::vector<int>{0});
}

}  // namespace

StatusOr<Output> BuildWordLm(const Scope& root, const ModelOptions& o, VariableStore* vars,
                             Model* m) {
  RETURN_IF_ERROR(CheckOptions(o));
  const WordLmOptions& w = o.word_lm;
  const int64_t B = o.batch_size, T = w.num_steps, C = w.lstm_cells;
  const int64_t P = w.projection_size > 0 ? w.projection_size : C;
  Scope in = root.NewSubScope("input");
  Output ids = ops::Placeholder(in.WithOpName("images"), DataType::kInt32, TensorShape{B, T});
  Output next_ids = ops::Placeholder(in.WithOpName("labels"), DataType::kInt32, TensorShape{B, T});
  WordLmWeights p = CreateWeights(root, w, vars);
  Scope es = root.NewSubScope("embedding");
  Output x = ops::Gather(es, p.embedding, ops::Transpose(es, ids, {1, 0}));  // [T, B, E]
  Scope ls = root.NewSubScope("lstm");
  LstmState initial{Zeros(ls, {B, C}), Zeros(ls, {B, P})};
  Output time_major = w.unroll ? UnrolledLstm(ls, p.lstm, x, T, initial)
                               : LoopedLstm(ls, p.lstm, x, T, initial, B, P);
  RETURN_IF_ERROR(root.status());
  Output outputs = ops::Reshape(ls, ops::Transpose(ls, time_major, {1, 0, 2}), {B * T, P});
  Scope ss = root.NewSubScope("softmax");
  Output logits = ops::BiasAdd(root.WithOpName("logits"),
                               ops::MatMul(ss, outputs, p.softmax_w, false, true), p.softmax_b);
  Output labels = ops::Reshape(root.NewSubScope("labels"), next_ids, {B * T});
  Output loss = TokenLoss(root, o, p, outputs, logits, labels);
  AddAccuracyMetrics(root, logits, labels, m);
  RETURN_IF_ERROR(root.status());
  m->images = ids.name();
  m->labels = next_ids.name();
  m->logits = logits.name();
  m->examples_per_step = B * T;
  m->example_unit = "words";
  return loss;
}

namespace {

// The registered variants: options with one choice forced.
StatusOr<Output> BuildUnrolled(const Scope& root, const ModelOptions& o, VariableStore* vars,
                               Model* m) {
  ModelOptions forced = o;
  forced.word_lm.unroll = true;
  return BuildWordLm(root, forced, vars, m);
}

StatusOr<Output> BuildBasic(const Scope& root, const ModelOptions& o, VariableStore* vars,
                             Model* m) {
  ModelOptions forced = o;
  forced.word_lm.cell = "basic";
  return BuildWordLm(root, forced, vars, m);
}

StatusOr<Output> BuildSampled(const Scope& root, const ModelOptions& o, VariableStore* vars,
                              Model* m) {
  ModelOptions forced = o;
  forced.word_lm.softmax = "sampled";
  return BuildWordLm(root, forced, vars, m);
}

}  // namespace

FB_REGISTER_MODEL("lstm_lm_word", ModelBodyFn(BuildWordLm));
FB_REGISTER_MODEL("lstm_lm_word_unrolled", ModelBodyFn(BuildUnrolled));
FB_REGISTER_MODEL("lstm_lm_word_sampled", ModelBodyFn(BuildSampled));
FB_REGISTER_MODEL("lstm_lm_word_basic", ModelBodyFn(BuildBasic));

}  // namespace fb::experiments
