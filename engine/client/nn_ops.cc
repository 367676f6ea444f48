#include "engine/client/nn_ops.h"

namespace fb::ops {

namespace {

std::vector<int64_t> Nhwc(Window2D w) { return {1, w.rows, w.cols, 1}; }

AttrMap ConvAttrs(Window2D strides, const std::string& padding, Window2D dilations) {
  return {{"strides", Nhwc(strides)}, {"padding", padding}, {"dilations", Nhwc(dilations)}};
}

AttrMap PoolAttrs(Window2D ksize, Window2D strides, const std::string& padding) {
  return {{"ksize", Nhwc(ksize)}, {"strides", Nhwc(strides)}, {"padding", padding}};
}

CrossEntropy TwoOutputs(const Scope& s, const std::string& op, Output a, Output b) {
  Node* n = AddOp(s, op, {a, b});
  return n ? CrossEntropy{Output(n, 0), Output(n, 1)} : CrossEntropy{};
}

AttrMap BatchNormAttrMap(const FusedBatchNormAttrs& a) {
  return {{"epsilon", a.epsilon}, {"is_training", a.is_training}, {"data_format", a.data_format}};
}

}  // namespace

FusedBatchNormOutputs FusedBatchNorm(const Scope& s, Output x, Output scale, Output offset,
                                     Output mean, Output variance,
                                     const FusedBatchNormAttrs& attrs) {
  Node* n = AddOp(s, "FusedBatchNorm", {x, scale, offset, mean, variance}, BatchNormAttrMap(attrs));
  if (!n) return {};
  return {Output(n, 0), Output(n, 1), Output(n, 2), Output(n, 3), Output(n, 4)};
}

FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& s, Output y_backprop, Output x,
                                             Output scale, Output reserve_space_1,
                                             Output reserve_space_2,
                                             const FusedBatchNormAttrs& attrs) {
  Node* n = AddOp(s, "FusedBatchNormGrad", {y_backprop, x, scale, reserve_space_1, reserve_space_2},
                  BatchNormAttrMap(attrs));
  if (!n) return {};
  return {Output(n, 0), Output(n, 1), Output(n, 2), Output(n, 3), Output(n, 4)};
}

Output Relu(const Scope& s, Output features) { return Op(s, "Relu", {features}); }
Output Sigmoid(const Scope& s, Output x) { return Op(s, "Sigmoid", {x}); }
Output Tanh(const Scope& s, Output x) { return Op(s, "Tanh", {x}); }
Output Relu6(const Scope& s, Output features) { return Op(s, "Relu6", {features}); }
Output Elu(const Scope& s, Output features) { return Op(s, "Elu", {features}); }
Output L2Loss(const Scope& s, Output t) { return Op(s, "L2Loss", {t}); }
Output Relu6Grad(const Scope& s, Output gradients, Output features) {
  return Op(s, "Relu6Grad", {gradients, features});
}
Output EluGrad(const Scope& s, Output gradients, Output outputs) {
  return Op(s, "EluGrad", {gradients, outputs});
}
Output Softmax(const Scope& s, Output logits) { return Op(s, "Softmax", {logits}); }
Output LogSoftmax(const Scope& s, Output logits) { return Op(s, "LogSoftmax", {logits}); }
Output BiasAdd(const Scope& s, Output value, Output bias) {
  return Op(s, "BiasAdd", {value, bias});
}

Output Conv2D(const Scope& s, Output input, Output filter, Window2D strides,
              const std::string& padding, Window2D dilations) {
  return Op(s, "Conv2D", {input, filter}, ConvAttrs(strides, padding, dilations));
}
Output MaxPool(const Scope& s, Output input, Window2D ksize, Window2D strides,
               const std::string& padding) {
  return Op(s, "MaxPool", {input}, PoolAttrs(ksize, strides, padding));
}
Output AvgPool(const Scope& s, Output value, Window2D ksize, Window2D strides,
               const std::string& padding) {
  return Op(s, "AvgPool", {value}, PoolAttrs(ksize, strides, padding));
}

CrossEntropy SoftmaxCrossEntropyWithLogits(const Scope& s, Output features, Output labels) {
  return TwoOutputs(s, "SoftmaxCrossEntropyWithLogits", features, labels);
}
CrossEntropy SparseSoftmaxCrossEntropyWithLogits(const Scope& s, Output features, Output labels) {
  return TwoOutputs(s, "SparseSoftmaxCrossEntropyWithLogits", features, labels);
}

Output ReluGrad(const Scope& s, Output gradients, Output features) {
  return Op(s, "ReluGrad", {gradients, features});
}
Output SigmoidGrad(const Scope& s, Output y, Output dy) { return Op(s, "SigmoidGrad", {y, dy}); }
Output TanhGrad(const Scope& s, Output y, Output dy) { return Op(s, "TanhGrad", {y, dy}); }
Output BiasAddGrad(const Scope& s, Output out_backprop) {
  return Op(s, "BiasAddGrad", {out_backprop});
}
Output Conv2DBackpropInput(const Scope& s, Output input_sizes, Output filter, Output out_backprop,
                           Window2D strides, const std::string& padding, Window2D dilations) {
  return Op(s, "Conv2DBackpropInput", {input_sizes, filter, out_backprop},
            ConvAttrs(strides, padding, dilations));
}
Output Conv2DBackpropFilter(const Scope& s, Output input, Output filter_sizes, Output out_backprop,
                            Window2D strides, const std::string& padding, Window2D dilations) {
  return Op(s, "Conv2DBackpropFilter", {input, filter_sizes, out_backprop},
            ConvAttrs(strides, padding, dilations));
}
Output MaxPoolGrad(const Scope& s, Output orig_input, Output orig_output, Output grad,
                   Window2D ksize, Window2D strides, const std::string& padding) {
  return Op(s, "MaxPoolGrad", {orig_input, orig_output, grad}, PoolAttrs(ksize, strides, padding));
}
Output AvgPoolGrad(const Scope& s, Output orig_input_shape, Output grad, Window2D ksize,
                   Window2D strides, const std::string& padding) {
  return Op(s, "AvgPoolGrad", {orig_input_shape, grad}, PoolAttrs(ksize, strides, padding));
}

}  // namespace fb::ops
