// Element-wise activations and bias addition of whitepaper Table 1 ("Neural-net building
// blocks"), with the gradient ops their gradient functions use (TensorFlow's names and argument
// orders: ReluGrad(gradients, features), SigmoidGrad(y, dy), TanhGrad(y, dy)).
#include "engine/ops/nn_ops_common.h"

namespace fb {

namespace {

Status BiasAddShape(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  RETURN_IF_ERROR(c->WithRank(1, 1));
  if (c->input(0) && c->input(1)) {
    int64_t d;
    RETURN_IF_ERROR(c->MergeDim(c->input(0)->dim_size(c->input(0)->rank() - 1),
                                c->input(1)->dim_size(0), &d,
                                "bias size must match the last dimension of value"));
  }
  c->set_output(0, c->input(0));
  return Status::OK();
}

Status BiasAddGradShape(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  const PartialShape& in = c->input(0);
  c->set_output(0, in ? PartialShape(TensorShape{in->dim_size(in->rank() - 1)}) : std::nullopt);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Relu")
    .Input("features: T")
    .Output("activations: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("max(features, 0), element-wise.");

REGISTER_OP("Sigmoid")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("1 / (1 + exp(-x)), element-wise.");

REGISTER_OP("Tanh")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {float, double}")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("tanh(x), element-wise.");

REGISTER_OP("ReluGrad")
    .Input("gradients: T")
    .Input("features: T")
    .Output("backprops: T")
    .Attr("T: {float, double}")
    .SetShapeFn(MergeBothInputsShape)
    .Doc("gradients * (features > 0): the gradient of Relu. `features` is Relu's input (or "
         "output: both are positive at the same places). Same shapes.");

REGISTER_OP("SigmoidGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn(MergeBothInputsShape)
    .Doc("dy * y * (1 - y) where y = Sigmoid(x): the gradient of Sigmoid w.r.t. x.");

REGISTER_OP("TanhGrad")
    .Input("y: T")
    .Input("dy: T")
    .Output("z: T")
    .Attr("T: {float, double}")
    .SetShapeFn(MergeBothInputsShape)
    .Doc("dy * (1 - y^2) where y = Tanh(x): the gradient of Tanh w.r.t. x.");

REGISTER_OP("BiasAdd")
    .Input("value: T")
    .Input("bias: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("data_format: string = \"NHWC\"")
    .SetShapeFn(BiasAddShape)
    .Doc("value + bias broadcast along the last dimension. value: [..., C] (rank >= 2, NHWC for "
         "images), bias: [C]. Only data_format \"NHWC\" is supported.");

REGISTER_OP("BiasAddGrad")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .Attr("data_format: string = \"NHWC\"")
    .SetShapeFn(BiasAddGradShape)
    .Doc("Sum of out_backprop [..., C] over every dimension but the last: the gradient of "
         "BiasAdd w.r.t. bias, shape [C].");

}  // namespace fb
