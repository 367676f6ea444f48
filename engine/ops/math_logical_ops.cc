// The logical ops of whitepaper Table 1, with TensorFlow's names and NumPy broadcasting
// (shape_fns::BroadcastBinary); the comparisons (Greater ... NotEqual) are in math_ops.cc.
// Kernels: kernels/cpu/cwise_logical.cc. No gradients (bool outputs).
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("z = x AND y, element-wise with broadcasting (TensorFlow's LogicalAnd).");

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("z = x OR y, element-wise with broadcasting (TensorFlow's LogicalOr).");

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("y = NOT x, element-wise (TensorFlow's LogicalNot).");

}  // namespace fb
