// RandomShuffle has no gradient (as TensorFlow): the permutation it drew is not an output, so
// the gradient cannot be routed back to the input rows.
#include "engine/autodiff/gradient_registry.h"

namespace fb {

REGISTER_NO_GRADIENT(RandomShuffle);

}  // namespace fb
