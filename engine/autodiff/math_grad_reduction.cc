// Gradients of the reductions (whitepaper 4.1), after TensorFlow's math_grad.py. The incoming
// gradient g has the reduced shape; it is reshaped to the keep_dims shape and broadcast back over
// the reduced axes. The axes input gets no gradient.
#include "engine/autodiff/math_grad_util.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

// g at the keep_dims shape, and the forward node's keep_dims attr.
StatusOr<NodeOut> KeptGrad(GradContext* ctx, NodeOut g) {
  bool keep_dims = false;
  RETURN_IF_ERROR(ctx->GetAttr("keep_dims", &keep_dims));
  return grad::KeptDims(ctx, g, ctx->input(0), ctx->input(1), keep_dims);
}

// dx = g * weights, where g has the keep_dims shape and weights x's shape: the broadcast Mul
// spreads g over the reduced axes.
Status Broadcast(GradContext* ctx, NodeOut g, NodeOut weights, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut out, ctx->Op("Mul", {g, weights}));
  *dx = {out, NodeOut{}};
  return Status::OK();
}

Status SumGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g, KeptGrad(ctx, dy[0]));
  ASSIGN_OR_RETURN(NodeOut ones, ctx->Op("OnesLike", {ctx->input(0)}));
  return Broadcast(ctx, g, ones, dx);
}

// As Sum, divided by the number of elements reduced into each output: Sum(OnesLike(x)) over the
// same axes, which also covers shapes known only at run time.
Status MeanGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g, KeptGrad(ctx, dy[0]));
  ASSIGN_OR_RETURN(NodeOut ones, ctx->Op("OnesLike", {ctx->input(0)}));
  ASSIGN_OR_RETURN(NodeOut count, ctx->Op("Sum", {ones, ctx->input(1)}, {{"keep_dims", true}}));
  ASSIGN_OR_RETURN(NodeOut mean_g, ctx->Op("Div", {g, count}));
  return Broadcast(ctx, mean_g, ones, dx);
}

// Max and Min: g goes to the elements equal to the result, split evenly between ties (as
// TensorFlow). A NaN result (Max and Min propagate NaN) counts every NaN of its slice as equal
// to it: indicators = (y == x) + isnan(y) * isnan(x).
Status SelectedGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  NodeOut x = ctx->input(0);
  ASSIGN_OR_RETURN(NodeOut y, KeptGrad(ctx, ctx->output(0)));
  ASSIGN_OR_RETURN(NodeOut g, KeptGrad(ctx, dy[0]));
  ASSIGN_OR_RETURN(NodeOut equal, ctx->Op("Equal", {y, x}));
  ASSIGN_OR_RETURN(NodeOut equal_values, grad::Cast(ctx, equal, x.dtype()));
  ASSIGN_OR_RETURN(NodeOut y_nan, grad::IsNanMask(ctx, y));
  ASSIGN_OR_RETURN(NodeOut x_nan, grad::IsNanMask(ctx, x));
  ASSIGN_OR_RETURN(NodeOut both_nan, ctx->Op("Mul", {y_nan, x_nan}));
  ASSIGN_OR_RETURN(NodeOut indicators, ctx->Op("Add", {equal_values, both_nan}));
  ASSIGN_OR_RETURN(NodeOut num_selected,
                   ctx->Op("Sum", {indicators, ctx->input(1)}, {{"keep_dims", true}}));
  ASSIGN_OR_RETURN(NodeOut share, ctx->Op("Div", {indicators, num_selected}));
  return Broadcast(ctx, g, share, dx);
}

}  // namespace

REGISTER_GRADIENT(Sum, SumGrad);
REGISTER_GRADIENT(Mean, MeanGrad);
REGISTER_GRADIENT(Max, SelectedGrad);
REGISTER_GRADIENT(Min, SelectedGrad);
REGISTER_NO_GRADIENT(ArgMax);

}  // namespace fb
