// Ops that pass a tensor through unchanged for the sake of training and debugging:
// StopGradient (whitepaper 4.1: blocks gradient flow) and CheckNumerics (whitepaper section 6,
// lesson 5: "check for NaNs and Infs" to localise numerical problems to a node).
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

REGISTER_OP("StopGradient")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns `input`; AddSymbolicGradients sends no gradient through it.");

REGISTER_OP("CheckNumerics")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("message: string")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns `tensor` if every element is finite; otherwise fails the step with "
         "InvalidArgument \"<message> : Tensor had NaN values\" (or Inf, or Inf and NaN), "
         "prefixed by the node's name.");

}  // namespace fb
