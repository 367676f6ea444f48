#pragma once
// Client wrappers for the neural-net ops (engine/ops/nn_ops_*.cc; whitepaper Table 1). Layouts:
// images NHWC [batch, rows, cols, depth], filters HWIO [rows, cols, in_depth, out_depth];
// strides and ksize are given as (rows, cols) and expanded to TensorFlow's [1, rows, cols, 1].
// dtypes float or double (from the inputs). Errors stick to the Scope like every client op.
#include "engine/client/scope.h"

namespace fb::ops {

// Spatial window parameters of Conv2D and pooling: (rows, cols) pairs.
struct Window2D {
  int64_t rows = 1, cols = 1;
};

Output Relu(const Scope& s, Output features);
Output Sigmoid(const Scope& s, Output x);
Output Tanh(const Scope& s, Output x);
// min(max(x, 0), 6) and exp(x) - 1 below 0 (TensorFlow's Relu6 and Elu).
Output Relu6(const Scope& s, Output features);
Output Elu(const Scope& s, Output features);
// sum(t^2) / 2, a scalar.
Output L2Loss(const Scope& s, Output t);
// Softmax and LogSoftmax over the last axis.
Output Softmax(const Scope& s, Output logits);
Output LogSoftmax(const Scope& s, Output logits);
// value [..., C] + bias [C].
Output BiasAdd(const Scope& s, Output value, Output bias);

// padding: "SAME" or "VALID"; dilation defaults to 1.
Output Conv2D(const Scope& s, Output input, Output filter, Window2D strides,
              const std::string& padding, Window2D dilations = {});
Output MaxPool(const Scope& s, Output input, Window2D ksize, Window2D strides,
               const std::string& padding);
Output AvgPool(const Scope& s, Output value, Window2D ksize, Window2D strides,
               const std::string& padding);

// Per-example losses [batch] and their gradient w.r.t. features [batch, classes].
struct CrossEntropy {
  Output loss;
  Output backprop;
};
// features, labels: [batch, classes]; each row of labels must be a probability distribution
// (sum 1): backprop = softmax(features) - labels is the gradient only then (as in TensorFlow).
CrossEntropy SoftmaxCrossEntropyWithLogits(const Scope& s, Output features, Output labels);
// features [batch, classes], labels [batch] int32 or int64.
CrossEntropy SparseSoftmaxCrossEntropyWithLogits(const Scope& s, Output features, Output labels);

// The gradient ops (normally added by AddSymbolicGradients, engine/autodiff/nn_grad.cc).
Output ReluGrad(const Scope& s, Output gradients, Output features);
Output SigmoidGrad(const Scope& s, Output y, Output dy);
Output TanhGrad(const Scope& s, Output y, Output dy);
Output Relu6Grad(const Scope& s, Output gradients, Output features);
Output EluGrad(const Scope& s, Output gradients, Output outputs);
Output BiasAddGrad(const Scope& s, Output out_backprop);
// input_sizes / filter_sizes: int32 [4].
Output Conv2DBackpropInput(const Scope& s, Output input_sizes, Output filter, Output out_backprop,
                           Window2D strides, const std::string& padding, Window2D dilations = {});
Output Conv2DBackpropFilter(const Scope& s, Output input, Output filter_sizes, Output out_backprop,
                            Window2D strides, const std::string& padding,
                            Window2D dilations = {});
Output MaxPoolGrad(const Scope& s, Output orig_input, Output orig_output, Output grad,
                   Window2D ksize, Window2D strides, const std::string& padding);
Output AvgPoolGrad(const Scope& s, Output orig_input_shape, Output grad, Window2D ksize,
                   Window2D strides, const std::string& padding);

}  // namespace fb::ops
