#include "engine/client/sampled_softmax.h"

#include <cfloat>

#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"

namespace fb::ops {

namespace {

// x as `dtype` (no node when it already is).
Output CastTo(const Scope& s, Output x, DataType dtype) {
  return x.type() == dtype ? x : Cast(s, x, dtype);
}

// The candidates of `o`, or a log-uniform unique draw for `labels` (int64).
SampledCandidates Candidates(const Scope& s, Output labels, const SampledSoftmaxOptions& o) {
  if (o.sampled_values.sampled_candidates.valid()) return o.sampled_values;
  CandidateSamplerAttrs a;
  a.num_true = o.num_true;
  a.num_sampled = o.num_sampled;
  a.unique = true;
  a.range_max = o.num_classes;
  a.seed = o.seed;
  a.seed2 = o.seed2;
  return LogUniformCandidateSampler(s.WithOpName("sampler"), labels, a);
}

// -FLT_MAX at the (row, position) of every sampled candidate equal to a true class of its row,
// zeros elsewhere, shaped like sampled_logits [batch, num_sampled] (TensorFlow's sparse_to_dense
// of the hits, here a scatter-add; Maximum keeps a doubly hit entry finite).
Output AccidentalHitMask(const Scope& s, Output labels, Output sampled, Output sampled_logits,
                         const SampledSoftmaxOptions& o) {
  AccidentalHits hits = ComputeAccidentalHits(s, labels, sampled, o.num_true);
  Output flat =
      Add(s, Mul(s, Cast(s, hits.indices, DataType::kInt64), Const(s, int64_t{o.num_sampled})),
          hits.ids);
  Output scattered = UnsortedSegmentSum(s, hits.weights, flat, Size(s, sampled_logits));
  Output mask = Maximum(s, scattered, Const(s, -FLT_MAX));
  return Reshape(s, CastTo(s, mask, sampled_logits.type()), Shape(s, sampled_logits));
}

}  // namespace

SampledLogits ComputeSampledLogits(const Scope& root, Output weights, Output biases, Output labels,
                                   Output inputs, const SampledSoftmaxOptions& o) {
  Scope s = root.NewSubScope("sampled_logits");
  const DataType dtype = inputs.type();
  labels = CastTo(s, labels, DataType::kInt64);
  SampledCandidates c = Candidates(s, labels, o);
  Output sampled = c.sampled_candidates;
  // One Gather for [sampled; true] rows, so that the weights get one gradient; sampled first,
  // so that both slices have constant bounds (and static shapes).
  Output all_ids = Concat(s, {sampled, Reshape(s, labels, {-1})}, 0);
  Output all_w = Gather(s, weights, all_ids);
  Output all_b = Gather(s, biases, all_ids);
  Output sampled_w = Slice(s, all_w, {0, 0}, {o.num_sampled, -1});
  Output true_w = Slice(s, all_w, {o.num_sampled, 0}, {-1, -1});
  Output sampled_b = Slice(s, all_b, {0}, {o.num_sampled});
  Output true_b = Reshape(s, Slice(s, all_b, {o.num_sampled}, {-1}), {-1, o.num_true});
  // true_logits[i, t] = inputs[i] . weights[labels[i, t]] + biases[labels[i, t]].
  Output true_w3 =
      o.num_true == 1
          ? ExpandDims(s, true_w, 1)
          : Reshape(s, true_w,
                    Concat(s, {IntConst(s, {-1, o.num_true}), Slice(s, Shape(s, true_w), {1}, {1})},
                           0));
  Output true_logits =
      Add(s, Sum(s, Mul(s, ExpandDims(s, inputs, 1), true_w3), std::vector<int>{2}), true_b);
  Output sampled_logits = Add(s, MatMul(s, inputs, sampled_w, false, true), sampled_b);
  if (o.remove_accidental_hits)
    sampled_logits =
        Add(s, sampled_logits, AccidentalHitMask(s, labels, sampled, sampled_logits, o));
  if (o.subtract_log_q) {
    true_logits = Sub(s, true_logits, Log(s, CastTo(s, c.true_expected_count, dtype)));
    sampled_logits = Sub(s, sampled_logits, Log(s, CastTo(s, c.sampled_expected_count, dtype)));
  }
  Output true_targets = OnesLike(s, true_logits);
  if (o.num_true > 1)
    true_targets = Mul(s, true_targets, CastTo(s, Const(s, 1.0 / o.num_true), dtype));
  SampledLogits out;
  out.logits = Concat(s, {true_logits, sampled_logits}, 1);
  out.labels = StopGradient(s, Concat(s, {true_targets, ZerosLike(s, sampled_logits)}, 1));
  return out;
}

Output SampledSoftmaxLoss(const Scope& s, Output weights, Output biases, Output labels,
                          Output inputs, const SampledSoftmaxOptions& options) {
  SampledLogits l = ComputeSampledLogits(s, weights, biases, labels, inputs, options);
  return SoftmaxCrossEntropyWithLogits(s, l.logits, l.labels).loss;
}

}  // namespace fb::ops
