// More element-wise activations of whitepaper Table 1 ("Neural-net building blocks") and the L2
// loss, with TensorFlow's names, argument orders and gradient conventions (nn_ops.cc, nn_grad.py):
// Relu6 and its Relu6Grad(gradients, features), Elu and its EluGrad(gradients, outputs), L2Loss.
// Kernels: kernels/cpu/elu_relu6_kernels.cc; gradients: engine/autodiff/nn_grad_elu_relu6.cc.
#include "engine/ops/nn_ops_common.h"

namespace fb {

REGISTER_OP("Relu6")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("min(max(features, 0), 6), element-wise (TensorFlow's Relu6). NaN stays NaN.");

REGISTER_OP("Relu6Grad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {float, double}")
    .SetShapeFn(MergeBothInputsShape)
    .Doc(
        "gradients * (0 < features < 6): the gradient of Relu6, 0 at the boundaries 0 and 6 "
        "as TensorFlow. `features` is Relu6's input. Same shapes.");

REGISTER_OP("Elu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc(
        "exp(features) - 1 where features < 0, else features, element-wise (Clevert et al., "
        "2015; TensorFlow's Elu).");

REGISTER_OP("EluGrad")
    .Input("gradients: T")
    .Input("outputs: T")
    .Output("backprops: T")
    .Attr("T: {float, double}")
    .SetShapeFn(MergeBothInputsShape)
    .Doc(
        "gradients * (outputs + 1) where outputs < 0, else gradients: the gradient of Elu, "
        "written in terms of Elu's output as TensorFlow's EluGrad. Same shapes.");

REGISTER_OP("L2Loss")
    .Input("t: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc(
        "sum(t ^ 2) / 2 over every element, a scalar (TensorFlow's L2Loss; 0 for an empty t). "
        "Gradient: t times the incoming gradient.");

}  // namespace fb
