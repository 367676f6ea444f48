// Candidate sampling ops for sampled softmax (Jean et al. 2015; TensorFlow's
// candidate_sampling_ops.cc): UniformCandidateSampler and LogUniformCandidateSampler draw
// `num_sampled` class ids from [0, range_max) for a whole batch and report how often each sampled
// and each true class is expected to be drawn; ComputeAccidentalHits finds the sampled ids that
// equal a true class of a row, so that sampled softmax can mask them. The samplers are stateful
// (Philox 4x32-10 keyed by seed, seed2, like the random ops) and not differentiable
// (engine/autodiff/candidate_sampling_grad.cc). Kernels: kernels/cpu/candidate_sampler_kernels.cc.
#include "engine/ops/nn_ops_common.h"

namespace fb {

namespace {

// Checks that input 0 (true_classes) is [batch, num_true] where known; sets *batch (-1 unknown).
Status TrueClassesShape(InferenceContext* c, int64_t num_true, int64_t* batch) {
  std::vector<int64_t> true_classes = DimsOrUnknown(c->input(0), 2);
  if (true_classes.size() != 2)
    return c->Error("true_classes must be 2-D [batch, num_true], got shape ",
                    DimsString(true_classes));
  int64_t columns = 0;
  RETURN_IF_ERROR(
      c->MergeDim(true_classes[1], num_true, &columns, "true_classes must have num_true columns"));
  *batch = true_classes[0];
  return Status::OK();
}

// true_classes [batch, num_true] -> sampled_candidates [num_sampled], true_expected_count
// [batch, num_true], sampled_expected_count [num_sampled].
Status CandidateSamplerShape(InferenceContext* c) {
  int64_t num_true = 0, num_sampled = 0, range_max = 0, batch = -1;
  bool unique = false;
  RETURN_IF_ERROR(c->GetAttr("num_true", &num_true));
  RETURN_IF_ERROR(c->GetAttr("num_sampled", &num_sampled));
  RETURN_IF_ERROR(c->GetAttr("range_max", &range_max));
  RETURN_IF_ERROR(c->GetAttr("unique", &unique));
  if (unique && num_sampled > range_max)
    return c->Error("unique sampling needs num_sampled <= range_max, got num_sampled ", num_sampled,
                    " > range_max ", range_max);
  RETURN_IF_ERROR(TrueClassesShape(c, num_true, &batch));
  c->set_output(0, TensorShape{num_sampled});
  c->set_output(1, TensorShape{batch, num_true});
  c->set_output(2, TensorShape{num_sampled});
  return Status::OK();
}

// true_classes [batch, num_true], sampled_candidates [num_sampled] -> three vectors of hits.
Status AccidentalHitsShape(InferenceContext* c) {
  int64_t num_true = 0, batch = -1;
  RETURN_IF_ERROR(c->GetAttr("num_true", &num_true));
  RETURN_IF_ERROR(TrueClassesShape(c, num_true, &batch));
  std::vector<int64_t> sampled = DimsOrUnknown(c->input(1), 1);
  if (sampled.size() != 1)
    return c->Error("sampled_candidates must be 1-D [num_sampled], got shape ",
                    DimsString(sampled));
  for (int i = 0; i < 3; ++i) c->set_output(i, TensorShape{-1});
  return Status::OK();
}

OpDefBuilder CandidateSamplerOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("true_classes: int64")
      .Output("sampled_candidates: int64")
      .Output("true_expected_count: float")
      .Output("sampled_expected_count: float")
      .Attr("num_true: int >= 1")
      .Attr("num_sampled: int >= 1")
      .Attr("unique: bool")
      .Attr("range_max: int >= 1")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .SetIsStateful()
      .SetShapeFn(CandidateSamplerShape);
  return b;
}

constexpr const char* kSamplerDoc =
    " true_classes: int64 [batch, num_true] in [0, range_max). Outputs sampled_candidates int64 "
    "[num_sampled] (distinct when `unique`, which needs num_sampled <= range_max), "
    "true_expected_count float [batch, num_true] and sampled_expected_count float [num_sampled]: "
    "the expected number of times a class occurs among the samples, P(k) * num_sampled without "
    "`unique`, and 1 - (1 - P(k))^tries with it (tries = draws needed to get num_sampled "
    "distinct values), as TensorFlow's range_sampler.cc. Philox 4x32-10 keyed by (seed, seed2); "
    "both 0 means random seeds.";

}  // namespace

static register_op::Registrar kUniformCandidateSamplerOp =
    CandidateSamplerOp("UniformCandidateSampler")
        .Doc(std::string("Samples classes uniformly: P(k) = 1 / range_max.") + kSamplerDoc);

static register_op::Registrar kLogUniformCandidateSamplerOp =
    CandidateSamplerOp("LogUniformCandidateSampler")
        .Doc(std::string("Samples classes from the log-uniform (Zipfian) distribution P(k) = "
                         "(log(k + 2) - log(k + 1)) / log(range_max + 1), for class ids sorted by "
                         "decreasing frequency.") +
             kSamplerDoc);

REGISTER_OP("ComputeAccidentalHits")
    .Input("true_classes: int64")
    .Input("sampled_candidates: int64")
    .Output("indices: int32")
    .Output("ids: int64")
    .Output("weights: float")
    .Attr("num_true: int >= 1")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .SetShapeFn(AccidentalHitsShape)
    .Doc(
        "The sampled candidates that equal a true class of their row: for every row i of "
        "true_classes [batch, num_true] and every true class of it found in sampled_candidates "
        "[num_sampled] (at position j; the last one if it occurs twice), one hit: indices[h] = i "
        "(int32), ids[h] = j (int64), weights[h] = -FLT_MAX (float). Sampled softmax adds the "
        "weights to the logits of the hits so that a true class does not count as a negative.");

}  // namespace fb
