// Gradients of the element-wise math ops (whitepaper 4.1), after TensorFlow's math_grad.py.
// Binary ops compute each input's gradient at the broadcast output shape and sum it back to the
// input's shape (ReduceBroadcastGrads). For an op with inputs x (and y), output z and incoming
// gradient g = dL/dz, each function returns dL/dx (and dL/dy).
#include "engine/autodiff/math_grad_util.h"

namespace fb {
namespace {

using grad::ReduceBroadcastGrads;
using grad::Scalar;
using Grads = std::vector<NodeOut>;

Status AddGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  return ReduceBroadcastGrads(ctx, dy[0], dy[0], dx);
}

Status SubGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut neg, ctx->Op("Neg", {dy[0]}));
  return ReduceBroadcastGrads(ctx, dy[0], neg, dx);
}

Status MulGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut gx, ctx->Op("Mul", {dy[0], ctx->input(1)}));
  ASSIGN_OR_RETURN(NodeOut gy, ctx->Op("Mul", {ctx->input(0), dy[0]}));
  return ReduceBroadcastGrads(ctx, gx, gy, dx);
}

// d(x/y)/dx = 1/y, d(x/y)/dy = -x/y^2.
Status DivGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  NodeOut x = ctx->input(0), y = ctx->input(1);
  ASSIGN_OR_RETURN(NodeOut gx, ctx->Op("Div", {dy[0], y}));
  ASSIGN_OR_RETURN(NodeOut neg_x, ctx->Op("Neg", {x}));
  ASSIGN_OR_RETURN(NodeOut q, ctx->Op("Div", {neg_x, y}));
  ASSIGN_OR_RETURN(q, ctx->Op("Div", {q, y}));
  ASSIGN_OR_RETURN(NodeOut gy, ctx->Op("Mul", {dy[0], q}));
  return ReduceBroadcastGrads(ctx, gx, gy, dx);
}

// d(x^y)/dx = y x^(y-1); d(x^y)/dy = x^y ln(x), taken as 0 where x <= 0 (as TensorFlow), using
// ln(x * m + (1 - m)) with the mask m = (x > 0) so that no NaN reaches the sum.
Status PowGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  NodeOut x = ctx->input(0), y = ctx->input(1), z = ctx->output(0);
  DataType t = x.dtype();
  ASSIGN_OR_RETURN(NodeOut one, Scalar(ctx, t, 1));
  ASSIGN_OR_RETURN(NodeOut zero, Scalar(ctx, t, 0));
  ASSIGN_OR_RETURN(NodeOut y_minus_1, ctx->Op("Sub", {y, one}));
  ASSIGN_OR_RETURN(NodeOut pow, ctx->Op("Pow", {x, y_minus_1}));
  ASSIGN_OR_RETURN(NodeOut gx, ctx->Op("Mul", {dy[0], y}));
  ASSIGN_OR_RETURN(gx, ctx->Op("Mul", {gx, pow}));
  ASSIGN_OR_RETURN(NodeOut positive, ctx->Op("Greater", {x, zero}));
  ASSIGN_OR_RETURN(NodeOut mask, grad::Cast(ctx, positive, t));
  ASSIGN_OR_RETURN(NodeOut masked_x, ctx->Op("Mul", {x, mask}));
  ASSIGN_OR_RETURN(NodeOut fill, ctx->Op("Sub", {one, mask}));
  ASSIGN_OR_RETURN(NodeOut safe_x, ctx->Op("Add", {masked_x, fill}));
  ASSIGN_OR_RETURN(NodeOut log_x, ctx->Op("Log", {safe_x}));
  ASSIGN_OR_RETURN(NodeOut gy, ctx->Op("Mul", {dy[0], z}));
  ASSIGN_OR_RETURN(gy, ctx->Op("Mul", {gy, log_x}));
  return ReduceBroadcastGrads(ctx, gx, gy, dx);
}

// Maximum and Minimum send the gradient to the input their output came from: x on ties (as
// TensorFlow) and when x is NaN, y when y won or only y is NaN (the output is then y's NaN).
// x_wins = (x == z) + isnan(x), two exclusive cases since NaN equals nothing.
Status SelectGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  NodeOut x = ctx->input(0), z = ctx->output(0);
  ASSIGN_OR_RETURN(NodeOut x_is_z, ctx->Op("Equal", {x, z}));
  ASSIGN_OR_RETURN(NodeOut x_chosen, grad::Cast(ctx, x_is_z, x.dtype()));
  ASSIGN_OR_RETURN(NodeOut x_nan, grad::IsNanMask(ctx, x));
  ASSIGN_OR_RETURN(NodeOut mask, ctx->Op("Add", {x_chosen, x_nan}));
  ASSIGN_OR_RETURN(NodeOut gx, ctx->Op("Mul", {dy[0], mask}));
  ASSIGN_OR_RETURN(NodeOut gy, ctx->Op("Sub", {dy[0], gx}));
  return ReduceBroadcastGrads(ctx, gx, gy, dx);
}

Status MaximumGrad(GradContext* ctx, const Grads& dy, Grads* dx) { return SelectGrad(ctx, dy, dx); }
Status MinimumGrad(GradContext* ctx, const Grads& dy, Grads* dx) { return SelectGrad(ctx, dy, dx); }

// Unary ops: dx = g * f'(x), with f' written in terms of x or the output y.
// Single() sets the one input's gradient.
Status Single(const StatusOr<NodeOut>& g, Grads* dx) {
  if (!g.ok()) return g.status();
  *dx = {*g};
  return Status::OK();
}

Status NegGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  return Single(ctx->Op("Neg", {dy[0]}), dx);
}

Status ExpGrad(GradContext* ctx, const Grads& dy, Grads* dx) {  // g * y
  return Single(ctx->Op("Mul", {dy[0], ctx->output(0)}), dx);
}

Status LogGrad(GradContext* ctx, const Grads& dy, Grads* dx) {  // g / x
  return Single(ctx->Op("Div", {dy[0], ctx->input(0)}), dx);
}

Status SqrtGrad(GradContext* ctx, const Grads& dy, Grads* dx) {  // g * 0.5 / y
  ASSIGN_OR_RETURN(NodeOut half, Scalar(ctx, dy[0].dtype(), 0.5));
  ASSIGN_OR_RETURN(NodeOut g, ctx->Op("Mul", {dy[0], half}));
  return Single(ctx->Op("Div", {g, ctx->output(0)}), dx);
}

Status RsqrtGrad(GradContext* ctx, const Grads& dy, Grads* dx) {  // g * -0.5 * y^3
  NodeOut y = ctx->output(0);
  ASSIGN_OR_RETURN(NodeOut minus_half, Scalar(ctx, y.dtype(), -0.5));
  ASSIGN_OR_RETURN(NodeOut y2, ctx->Op("Square", {y}));
  ASSIGN_OR_RETURN(NodeOut y3, ctx->Op("Mul", {y2, y}));
  ASSIGN_OR_RETURN(NodeOut g, ctx->Op("Mul", {dy[0], minus_half}));
  return Single(ctx->Op("Mul", {g, y3}), dx);
}

Status SquareGrad(GradContext* ctx, const Grads& dy, Grads* dx) {  // g * 2x
  ASSIGN_OR_RETURN(NodeOut two, Scalar(ctx, dy[0].dtype(), 2));
  ASSIGN_OR_RETURN(NodeOut two_x, ctx->Op("Mul", {ctx->input(0), two}));
  return Single(ctx->Op("Mul", {dy[0], two_x}), dx);
}

Status ReciprocalGrad(GradContext* ctx, const Grads& dy, Grads* dx) {  // -g * y^2
  ASSIGN_OR_RETURN(NodeOut y2, ctx->Op("Square", {ctx->output(0)}));
  ASSIGN_OR_RETURN(NodeOut neg, ctx->Op("Neg", {dy[0]}));
  return Single(ctx->Op("Mul", {neg, y2}), dx);
}

// Between floating types the gradient is cast back; other casts are not differentiable.
Status CastGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  DataType src = ctx->input(0).dtype(), dst = ctx->output(0).dtype();
  dx->assign(1, NodeOut{});
  if (DataTypeIsFloating(src) && DataTypeIsFloating(dst)) {
    ASSIGN_OR_RETURN((*dx)[0], grad::Cast(ctx, dy[0], src));
  }
  return Status::OK();
}

Status AddNGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  dx->assign(ctx->node()->num_inputs(), dy[0]);
  return Status::OK();
}

// Fill(dims, value): the value's gradient is the sum of g; dims get none.
Status FillGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut flat_shape, grad::IntVector(ctx, {-1}));
  ASSIGN_OR_RETURN(NodeOut flat, ctx->Op("Reshape", {dy[0], flat_shape}));
  ASSIGN_OR_RETURN(NodeOut axis, grad::IntVector(ctx, {0}));
  ASSIGN_OR_RETURN(NodeOut sum, ctx->Op("Sum", {flat, axis}));
  *dx = {NodeOut{}, sum};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(Add, AddGrad);
REGISTER_GRADIENT(Sub, SubGrad);
REGISTER_GRADIENT(Mul, MulGrad);
REGISTER_GRADIENT(Div, DivGrad);
REGISTER_GRADIENT(Pow, PowGrad);
REGISTER_GRADIENT(Maximum, MaximumGrad);
REGISTER_GRADIENT(Minimum, MinimumGrad);
REGISTER_GRADIENT(Neg, NegGrad);
REGISTER_GRADIENT(Exp, ExpGrad);
REGISTER_GRADIENT(Log, LogGrad);
REGISTER_GRADIENT(Sqrt, SqrtGrad);
REGISTER_GRADIENT(Rsqrt, RsqrtGrad);
REGISTER_GRADIENT(Square, SquareGrad);
REGISTER_GRADIENT(Reciprocal, ReciprocalGrad);
REGISTER_GRADIENT(Cast, CastGrad);
REGISTER_GRADIENT(AddN, AddNGrad);
REGISTER_GRADIENT(Fill, FillGrad);

// Boolean outputs, constants and shape arithmetic: no gradient flows through them.
REGISTER_NO_GRADIENT(Greater);
REGISTER_NO_GRADIENT(Less);
REGISTER_NO_GRADIENT(Equal);
REGISTER_NO_GRADIENT(ZerosLike);
REGISTER_NO_GRADIENT(OnesLike);
REGISTER_NO_GRADIENT(BroadcastGradientArgs);
REGISTER_NO_GRADIENT(ReducedShape);

}  // namespace fb
