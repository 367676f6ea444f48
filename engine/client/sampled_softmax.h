#pragma once
// Sampled softmax loss (Jean et al., ACL 2015, "On Using Very Large Target Vocabulary for Neural
// Machine Translation"), as TensorFlow's nn_impl.sampled_softmax_loss with
// remove_accidental_hits = true and subtract_log_q = true: the softmax over all num_classes
// classes is replaced by one over each row's true classes and `num_sampled` candidates drawn for
// the whole batch (LogUniformCandidateSampler, unique), with every logit corrected by
// -log(expected count of its class) and sampled candidates equal to a row's true class masked
// (-FLT_MAX). Used by the word LSTM language model (experiments/models/lstm_lm_word.h, OSDI 6.4:
// "reduces the data transfer and computation by a factor of 78" at 40,000 words).
//
//   ops::SampledSoftmaxOptions o;  o.num_sampled = 512;  o.num_classes = 40000;  o.seed = 1;
//   Output losses = ops::SampledSoftmaxLoss(root, w /*[V,dim]*/, b /*[V]*/, labels /*[B,1]*/,
//                                           h /*[B,dim]*/, o);          // [B]
//
// Gradients flow to weights, biases and inputs (Gather, MatMul, Slice); only the rows of the
// true and sampled classes of `weights` get a non-zero (dense) gradient.
#include <cstdint>

#include "engine/client/candidate_sampling_ops.h"
#include "engine/client/scope.h"

namespace fb::ops {

struct SampledSoftmaxOptions {
  int64_t num_sampled = 512;  // candidates per step, for the whole batch
  int64_t num_classes = 0;    // V: classes are [0, V); the sampler's range_max
  int64_t num_true = 1;       // columns of labels
  bool remove_accidental_hits = true;
  bool subtract_log_q = true;
  int64_t seed = 0, seed2 = 0;  // the sampler's; both 0: random seeds
  // Candidates drawn elsewhere (tests pass constants; several losses may share one draw): when
  // sampled_candidates is valid, these three replace the built-in log-uniform sampler; they must
  // hold num_sampled candidates and the expected counts of the outputs of a candidate sampler.
  SampledCandidates sampled_values;
};

// Per-example losses [batch] of dtype weights.dtype (float or double).
//   weights [num_classes, dim], biases [num_classes]: the output layer (class k's row and bias)
//   labels int64 or int32 [batch, num_true] in [0, num_classes)
//   inputs [batch, dim]: the activations fed to the output layer
// Each row's loss is the cross-entropy of softmax over [true logits, sampled logits] against
// target 1/num_true on every true class. Errors stick to the Scope (naming the node); bad label
// values or shapes fail when the Session runs the sampler or the Gather.
Output SampledSoftmaxLoss(const Scope& s, Output weights, Output biases, Output labels,
                          Output inputs, const SampledSoftmaxOptions& options);

// The logits [batch, num_true + num_sampled] and targets (same shape; 1/num_true on the true
// columns, the first num_true) SampledSoftmaxLoss feeds to SoftmaxCrossEntropyWithLogits
// (TensorFlow's _compute_sampled_logits).
struct SampledLogits {
  Output logits, labels;
};
SampledLogits ComputeSampledLogits(const Scope& s, Output weights, Output biases, Output labels,
                                   Output inputs, const SampledSoftmaxOptions& options);

}  // namespace fb::ops
