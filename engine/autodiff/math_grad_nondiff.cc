// Math ops with no gradient, as in TensorFlow's math_grad.py (NotDifferentiable): comparisons
// and logical ops (bool outputs), ArgMin (an index), Range (its output depends on the inputs
// only through its length, and the values are not differentiable in practice).
#include "engine/autodiff/gradient_registry.h"

namespace fb {

REGISTER_NO_GRADIENT(GreaterEqual);
REGISTER_NO_GRADIENT(LessEqual);
REGISTER_NO_GRADIENT(NotEqual);
REGISTER_NO_GRADIENT(LogicalAnd);
REGISTER_NO_GRADIENT(LogicalOr);
REGISTER_NO_GRADIENT(LogicalNot);
REGISTER_NO_GRADIENT(ArgMin);
REGISTER_NO_GRADIENT(Range);

}  // namespace fb
