// Softmax, LogSoftmax and the fused softmax cross-entropy losses of whitepaper Table 1 ("SoftMax",
// "Neural-net building blocks"). Kernels subtract the row maximum before exponentiating, so
// large logits neither overflow nor lose the loss (kernels/cpu/softmax_kernels.cc).
#include "engine/ops/nn_ops_common.h"

namespace fb {

namespace {

Status SoftmaxShape(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  c->set_output(0, c->input(0));
  return Status::OK();
}

// features [batch, classes] -> loss [batch], backprop [batch, classes]. `labels_rank` is 2 for
// dense labels [batch, classes] and 1 for sparse labels [batch].
Status CrossEntropyShape(InferenceContext* c, int labels_rank) {
  std::vector<int64_t> features = DimsOrUnknown(c->input(0), 2);
  std::vector<int64_t> labels = DimsOrUnknown(c->input(1), labels_rank);
  if (features.size() != 2)
    return c->Error("features must be 2-D [batch, classes], got shape ", DimsString(features));
  if (static_cast<int>(labels.size()) != labels_rank)
    return c->Error("labels must be ", labels_rank == 2 ? "2-D [batch, classes]" : "1-D [batch]",
                    ", got shape ", DimsString(labels));
  int64_t batch, classes = features[1];
  RETURN_IF_ERROR(c->MergeDim(features[0], labels[0], &batch,
                              "features and labels must have the same batch size"));
  if (labels_rank == 2)
    RETURN_IF_ERROR(c->MergeDim(features[1], labels[1], &classes,
                                "features and labels must have the same number of classes"));
  c->set_output(0, TensorShape{batch});
  c->set_output(1, TensorShape{batch, classes});
  return Status::OK();
}

}  // namespace

REGISTER_OP("Softmax")
    .Input("logits: T")
    .Output("softmax: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SoftmaxShape)
    .Doc("softmax[..., j] = exp(logits[..., j]) / sum_k exp(logits[..., k]) over the last axis "
         "(rank >= 1).");

REGISTER_OP("LogSoftmax")
    .Input("logits: T")
    .Output("logsoftmax: T")
    .Attr("T: {float, double}")
    .SetShapeFn(SoftmaxShape)
    .Doc("logsoftmax[..., j] = logits[..., j] - log(sum_k exp(logits[..., k])) over the last "
         "axis (rank >= 1).");

REGISTER_OP("SoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: T")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float, double}")
    .SetShapeFn([](InferenceContext* c) { return CrossEntropyShape(c, 2); })
    .Doc("Per-example cross-entropy loss[i] = -sum_j labels[i,j] * logsoftmax(features)[i,j] for "
         "features and labels [batch, classes] (each labels row a probability distribution); "
         "backprop = softmax(features) - labels, the gradient of loss w.r.t. features.");

REGISTER_OP("SparseSoftmaxCrossEntropyWithLogits")
    .Input("features: T")
    .Input("labels: Tlabels")
    .Output("loss: T")
    .Output("backprop: T")
    .Attr("T: {float, double}")
    .Attr("Tlabels: {int32, int64} = int64")
    .SetShapeFn([](InferenceContext* c) { return CrossEntropyShape(c, 1); })
    .Doc("Cross-entropy with integer labels [batch] in [0, classes): loss[i] = "
         "-logsoftmax(features)[i, labels[i]], backprop = softmax(features) - onehot(labels). "
         "A label outside [0, classes) is an InvalidArgument naming the label and its index.");

}  // namespace fb
