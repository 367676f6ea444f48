// The candidate sampling ops (engine/ops/candidate_sampling_ops.cc) have no gradient, as in
// TensorFlow's candidate_sampling_ops.py (NotDifferentiable): their inputs are integer class ids.
#include "engine/autodiff/gradient_registry.h"

namespace fb {

REGISTER_NO_GRADIENT(UniformCandidateSampler);
REGISTER_NO_GRADIENT(LogUniformCandidateSampler);
REGISTER_NO_GRADIENT(ComputeAccidentalHits);

}  // namespace fb
