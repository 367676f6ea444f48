#pragma once
// Client wrappers for the candidate sampling ops (engine/ops/candidate_sampling_ops.cc), after
// TensorFlow's candidate_sampling_ops.py:
//
//   ops::CandidateSamplerAttrs a;  a.num_sampled = 512;  a.range_max = 40000;  a.seed = 1;
//   ops::SampledCandidates c = ops::LogUniformCandidateSampler(root, labels /*int64 [B,1]*/, a);
//
// Errors stick to the Scope; bad shapes and class ids fail when the Session runs the node.
#include <cstdint>

#include "engine/client/scope.h"

namespace fb::ops {

struct CandidateSamplerAttrs {
  int64_t num_true = 1;         // columns of true_classes
  int64_t num_sampled = 1;      // candidates drawn per Run, for the whole batch
  bool unique = true;           // distinct candidates (needs num_sampled <= range_max)
  int64_t range_max = 1;        // classes are [0, range_max)
  int64_t seed = 0, seed2 = 0;  // Philox key; both 0: random seeds
};

// sampled_candidates int64 [num_sampled]; true_expected_count float [batch, num_true];
// sampled_expected_count float [num_sampled] (see the op's documentation for the formulas).
struct SampledCandidates {
  Output sampled_candidates, true_expected_count, sampled_expected_count;
};

// true_classes: int64 [batch, num_true] in [0, range_max).
SampledCandidates UniformCandidateSampler(const Scope& s, Output true_classes,
                                          const CandidateSamplerAttrs& attrs);
SampledCandidates LogUniformCandidateSampler(const Scope& s, Output true_classes,
                                             const CandidateSamplerAttrs& attrs);

// indices int32 [hits] (rows of true_classes), ids int64 [hits] (positions in
// sampled_candidates), weights float [hits] (-FLT_MAX).
struct AccidentalHits {
  Output indices, ids, weights;
};
AccidentalHits ComputeAccidentalHits(const Scope& s, Output true_classes, Output sampled_candidates,
                                     int64_t num_true);

}  // namespace fb::ops
