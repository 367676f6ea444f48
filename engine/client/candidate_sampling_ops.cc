#include "engine/client/candidate_sampling_ops.h"

namespace fb::ops {

namespace {

SampledCandidates Sampler(const Scope& s, const char* op, Output true_classes,
                          const CandidateSamplerAttrs& a) {
  Node* n = AddOp(s, op, {true_classes},
                  {{"num_true", a.num_true},
                   {"num_sampled", a.num_sampled},
                   {"unique", a.unique},
                   {"range_max", a.range_max},
                   {"seed", a.seed},
                   {"seed2", a.seed2}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1), Output(n, 2)};
}

}  // namespace

SampledCandidates UniformCandidateSampler(const Scope& s, Output true_classes,
                                          const CandidateSamplerAttrs& attrs) {
  return Sampler(s, "UniformCandidateSampler", true_classes, attrs);
}

SampledCandidates LogUniformCandidateSampler(const Scope& s, Output true_classes,
                                             const CandidateSamplerAttrs& attrs) {
  return Sampler(s, "LogUniformCandidateSampler", true_classes, attrs);
}

AccidentalHits ComputeAccidentalHits(const Scope& s, Output true_classes, Output sampled_candidates,
                                     int64_t num_true) {
  Node* n = AddOp(s, "ComputeAccidentalHits", {true_classes, sampled_candidates},
                  {{"num_true", num_true}});
  if (n == nullptr) return {};
  return {Output(n, 0), Output(n, 1), Output(n, 2)};
}

}  // namespace fb::ops
