#pragma once
// Batch normalization layer (Ioffe and Szegedy, ICML 2015) for the model builders, on
// TensorFlow's FusedBatchNorm op (engine/ops/nn_ops_batch_norm.cc), NHWC float.
//
//   x = Conv2DLayer(s, vars, "conv1", x, Conv2DSpec{7, 7, 2, 2, 3, 64, "SAME", /*bias=*/false},
//                   Activation::kNone);
//   x = BatchNorm(s, vars, "conv1/bn", x, 64, Activation::kRelu);
//
// (Conv2DLayer with kNone initializes Glorot; experiments/models/resnet.cc's ConvBn creates the
// weight with vars->Weight(..., InitKind::kHeUniform) since a ReLU follows the batch norm.)
// Nodes: "<name>/FusedBatchNorm" (outputs y, batch_mean, batch_variance, ...), in the training
// form "<name>/moving_mean_update" and "<name>/moving_variance_update" (AssignSub), then the
// ReLU if asked. `channels` must equal x's last dimension (C of NHWC).
//
// Variables (under "<name>/"), float [channels]:
//   gamma            scale, trainable, ones at init (absent with BatchNormSpec::scale false)
//   beta             offset, trainable, zeros at init
//   moving_mean      non-trainable, zeros at init   (VariableStore::NonTrainable: saved by the
//   moving_variance  non-trainable, ones at init     model Saver and set by `init`, but not in
//                                                    Model::variables: no gradient, no slots)
// Training form (vars->training(), the default; ModelOptions::training): normalizes with the
// batch's mean and biased variance over N, H, W, and registers with vars->AddUpdate two
// updates that the train op runs every step:
//   moving_mean     -= (moving_mean - batch_mean) * (1 - decay)
//   moving_variance -= (moving_variance - batch_variance) * (1 - decay)
// i.e. moving = moving * decay + batch * (1 - decay) (TensorFlow's assign_moving_average), with
// batch_variance Bessel-corrected as TensorFlow and PyTorch do. decay 0.9 is torchvision's
// BatchNorm2d momentum 0.1 (PyTorch's momentum is 1 - decay); epsilon 1e-5 is BatchNorm2d's.
// Inference form (vars->training() false): normalizes with the moving statistics and adds no
// updates. Evaluation of a model built in training form (Model::num_correct fed a test batch)
// therefore uses the test batch's statistics; to evaluate with the moving statistics build the
// model with ModelOptions::training = false and restore a checkpoint (same Variable names).
// Returns activation(y), y = (x - mean) * gamma / sqrt(variance + epsilon) + beta, the shape of
// x. Errors: a VariableStore in Reusing mode (no non-trainable Variables there) or a bad spec
// is recorded in the Scope, naming the Variable or layer; x not 4-D or channels not matching
// x's last dimension fail the FusedBatchNorm node "<name>/FusedBatchNorm" (shape inference at
// placement, or the kernel when it runs), naming it. Data-parallel dist-train (mpi/dist_model.cc,
// VariableStore::Reusing) does not support the layer: replicas share trainable Variables only.
// Not thread-safe (graph building, like the Scope).
#include <string>

#include "experiments/models/layers.h"

namespace fb::experiments {

struct BatchNormSpec {
  double epsilon = 1e-5;  // added to the variance (torchvision's BatchNorm2d eps)
  double decay = 0.9;     // moving-average decay, in [0, 1]
  // false: no gamma Variable, the scale is a constant 1 (TF-slim's batch_norm default
  // scale=False, as TensorFlow's Inception-v3 and Keras' BatchNormalization(scale=False) build it;
  // fine before a ReLU, whose next layer can absorb the scale).
  bool scale = true;
};

Output BatchNorm(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                 int64_t channels, Activation activation, const BatchNormSpec& spec = {});

}  // namespace fb::experiments
