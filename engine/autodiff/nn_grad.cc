// Gradient functions of the neural-net ops (whitepaper 4.1), after TensorFlow's
// python/ops/nn_grad.py. Convolution and pooling gradients use the backprop ops
// (Conv2DBackpropInput/Filter, MaxPoolGrad, AvgPoolGrad), activations their *Grad ops; softmax
// gradients are built from element-wise math ops. Second-order terms are not built: the
// gradient flowing into the `backprop` output of the cross-entropy ops is ignored.
#include "engine/autodiff/gradient_registry.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

// dx = Op(a, b): the activations' gradient ops.
Status UnaryGrad(GradContext* c, const std::string& op, NodeOut a, NodeOut b, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g, c->Op(op, {a, b}));
  *dx = {g};
  return Status::OK();
}

Status ReluGrad(GradContext* c, const Grads& dy, Grads* dx) {
  return UnaryGrad(c, "ReluGrad", dy[0], c->output(0), dx);
}
Status SigmoidGrad(GradContext* c, const Grads& dy, Grads* dx) {
  return UnaryGrad(c, "SigmoidGrad", c->output(0), dy[0], dx);
}
Status TanhGrad(GradContext* c, const Grads& dy, Grads* dx) {
  return UnaryGrad(c, "TanhGrad", c->output(0), dy[0], dx);
}

Status BiasAddGrad(GradContext* c, const Grads& dy, Grads* dx) {
  std::string format;
  RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  ASSIGN_OR_RETURN(NodeOut db, c->Op("BiasAddGrad", {dy[0]}, {{"data_format", format}}));
  *dx = {dy[0], db};
  return Status::OK();
}

// The forward node's attrs, for backprop ops that take the same window attrs.
const AttrMap& ForwardAttrs(GradContext* c) { return c->node()->def().attrs; }

StatusOr<NodeOut> ShapeOf(GradContext* c, NodeOut x) {
  return c->Op("Shape", {x}, {{"out_type", DataType::kInt32}});
}

Status Conv2DGrad(GradContext* c, const Grads& dy, Grads* dx) {
  NodeOut input = c->input(0), filter = c->input(1);
  ASSIGN_OR_RETURN(NodeOut input_sizes, ShapeOf(c, input));
  ASSIGN_OR_RETURN(NodeOut filter_sizes, ShapeOf(c, filter));
  ASSIGN_OR_RETURN(NodeOut d_input,
                   c->Op("Conv2DBackpropInput", {input_sizes, filter, dy[0]}, ForwardAttrs(c)));
  ASSIGN_OR_RETURN(NodeOut d_filter,
                   c->Op("Conv2DBackpropFilter", {input, filter_sizes, dy[0]}, ForwardAttrs(c)));
  *dx = {d_input, d_filter};
  return Status::OK();
}

Status MaxPoolGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g,
                   c->Op("MaxPoolGrad", {c->input(0), c->output(0), dy[0]}, ForwardAttrs(c)));
  *dx = {g};
  return Status::OK();
}

Status AvgPoolGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut sizes, ShapeOf(c, c->input(0)));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("AvgPoolGrad", {sizes, dy[0]}, ForwardAttrs(c)));
  *dx = {g};
  return Status::OK();
}

// Sum over the last axis, keeping it (shape [..., 1]).
StatusOr<NodeOut> SumLastAxis(GradContext* c, NodeOut x) {
  ASSIGN_OR_RETURN(NodeOut axis, c->Const(Tensor::Scalar<int32_t>(-1)));
  return c->Op("Sum", {x, axis}, {{"keep_dims", true}});
}

// d softmax: dx = (dy - sum(dy * y, -1)) * y with y = softmax(x).
Status SoftmaxGrad(GradContext* c, const Grads& dy, Grads* dx) {
  NodeOut y = c->output(0);
  ASSIGN_OR_RETURN(NodeOut dy_y, c->Op("Mul", {dy[0], y}));
  ASSIGN_OR_RETURN(NodeOut sum, SumLastAxis(c, dy_y));
  ASSIGN_OR_RETURN(NodeOut centered, c->Op("Sub", {dy[0], sum}));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Mul", {centered, y}));
  *dx = {g};
  return Status::OK();
}

// d logsoftmax: dx = dy - sum(dy, -1) * exp(y) with y = logsoftmax(x).
Status LogSoftmaxGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut softmax, c->Op("Exp", {c->output(0)}));
  ASSIGN_OR_RETURN(NodeOut sum, SumLastAxis(c, dy[0]));
  ASSIGN_OR_RETURN(NodeOut scaled, c->Op("Mul", {sum, softmax}));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("Sub", {dy[0], scaled}));
  *dx = {g};
  return Status::OK();
}

// dy_loss [batch] -> [batch, 1] times m [batch, classes].
StatusOr<NodeOut> BroadcastMul(GradContext* c, NodeOut dy_loss, NodeOut m) {
  ASSIGN_OR_RETURN(NodeOut axis, c->Const(Tensor::Scalar<int32_t>(-1)));
  ASSIGN_OR_RETURN(NodeOut column, c->Op("ExpandDims", {dy_loss, axis}));
  return c->Op("Mul", {column, m});
}

// d loss / d features = backprop (output 1) scaled per example by the incoming gradient;
// d loss / d labels = -logsoftmax(features), scaled likewise.
Status SoftmaxXentGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut d_features, BroadcastMul(c, dy[0], c->output(1)));
  ASSIGN_OR_RETURN(NodeOut log_softmax, c->Op("LogSoftmax", {c->input(0)}));
  ASSIGN_OR_RETURN(NodeOut neg, c->Op("Neg", {log_softmax}));
  ASSIGN_OR_RETURN(NodeOut d_labels, BroadcastMul(c, dy[0], neg));
  *dx = {d_features, d_labels};
  return Status::OK();
}

// Integer labels get no gradient.
Status SparseSoftmaxXentGrad(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut d_features, BroadcastMul(c, dy[0], c->output(1)));
  *dx = {d_features, NodeOut{}};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(Relu, ReluGrad);
REGISTER_GRADIENT(Sigmoid, SigmoidGrad);
REGISTER_GRADIENT(Tanh, TanhGrad);
REGISTER_GRADIENT(BiasAdd, BiasAddGrad);
REGISTER_GRADIENT(Conv2D, Conv2DGrad);
REGISTER_GRADIENT(MaxPool, MaxPoolGrad);
REGISTER_GRADIENT(AvgPool, AvgPoolGrad);
REGISTER_GRADIENT(Softmax, SoftmaxGrad);
REGISTER_GRADIENT(LogSoftmax, LogSoftmaxGrad);
REGISTER_GRADIENT(SoftmaxCrossEntropyWithLogits, SoftmaxXentGrad);
REGISTER_GRADIENT(SparseSoftmaxCrossEntropyWithLogits, SparseSoftmaxXentGrad);

}  // namespace fb
