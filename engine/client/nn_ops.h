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

// Batch normalization (TensorFlow's FusedBatchNorm, NHWC): x [N, H, W, C]; scale, offset,
// mean, variance [C]. is_training: normalizes with the batch's mean and biased variance
// (mean/variance may be empty [0] constants), batch_variance is the unbiased one (for moving
// averages); otherwise with the given mean and variance. float or double.
struct FusedBatchNormAttrs {
  float epsilon = 1e-4f;
  bool is_training = true;
  std::string data_format = "NHWC";  // only NHWC is supported
};
struct FusedBatchNormOutputs {
  Output y, batch_mean, batch_variance, reserve_space_1, reserve_space_2;
};
FusedBatchNormOutputs FusedBatchNorm(const Scope& s, Output x, Output scale, Output offset,
                                     Output mean, Output variance,
                                     const FusedBatchNormAttrs& attrs = {});
struct FusedBatchNormGradOutputs {
  Output x_backprop, scale_backprop, offset_backprop, reserve_space_3, reserve_space_4;
};
// reserve_space_1/_2: the forward's (training) or its mean/variance inputs (inference).
FusedBatchNormGradOutputs FusedBatchNormGrad(const Scope& s, Output y_backprop, Output x,
                                             Output scale, Output reserve_space_1,
                                             Output reserve_space_2,
                                             const FusedBatchNormAttrs& attrs = {});

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
