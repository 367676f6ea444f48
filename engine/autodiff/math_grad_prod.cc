// Gradient of Prod (whitepaper 4.1). d prod / d x_i is the product of the other elements reduced
// with x_i. TensorFlow's _ProdGrad computes it as exclusive cumulative products from both sides;
// here it comes from the count of zeros in each reduced group, which gives the same values
// (exact with zeros, no division by zero) with the ops at hand:
//   no zero in the group:   prod / x_i
//   one zero (at x_j):      prod of the non-zeros at i = j, 0 elsewhere
//   two or more zeros:      0
// With p = Prod(x with zeros replaced by 1) and n = the number of zeros (both keep_dims, so they
// broadcast over the group):  factor = [n == 0] * p / x_safe + [n == 1] * p * [x == 0].
// The axes input gets no gradient; the axes may be known only at run time.
#include "engine/autodiff/math_grad_util.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

// Cast(Equal(a, b)) to `dtype`: 1 where equal, else 0.
StatusOr<NodeOut> Indicator(GradContext* ctx, NodeOut a, NodeOut b, DataType dtype) {
  ASSIGN_OR_RETURN(NodeOut equal, ctx->Op("Equal", {a, b}));
  return grad::Cast(ctx, equal, dtype);
}

Status ProdGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  NodeOut x = ctx->input(0), axes = ctx->input(1);
  const DataType t = x.dtype();
  bool keep_dims = false;
  RETURN_IF_ERROR(ctx->GetAttr("keep_dims", &keep_dims));
  ASSIGN_OR_RETURN(NodeOut g, grad::KeptDims(ctx, dy[0], x, axes, keep_dims));
  ASSIGN_OR_RETURN(NodeOut zero, grad::Scalar(ctx, t, 0));
  ASSIGN_OR_RETURN(NodeOut one, grad::Scalar(ctx, t, 1));
  ASSIGN_OR_RETURN(NodeOut is_zero_bool, ctx->Op("Equal", {x, zero}));
  ASSIGN_OR_RETURN(NodeOut is_zero, grad::Cast(ctx, is_zero_bool, t));
  ASSIGN_OR_RETURN(NodeOut ones, ctx->Op("OnesLike", {x}));
  ASSIGN_OR_RETURN(NodeOut x_safe, ctx->Op("Select", {is_zero_bool, ones, x}));
  const AttrMap kept = {{"keep_dims", true}};
  ASSIGN_OR_RETURN(NodeOut p, ctx->Op("Prod", {x_safe, axes}, kept));
  ASSIGN_OR_RETURN(NodeOut zeros, ctx->Op("Sum", {is_zero, axes}, kept));
  ASSIGN_OR_RETURN(NodeOut none, Indicator(ctx, zeros, zero, t));
  ASSIGN_OR_RETURN(NodeOut single, Indicator(ctx, zeros, one, t));
  ASSIGN_OR_RETURN(NodeOut p_none, ctx->Op("Mul", {none, p}));
  ASSIGN_OR_RETURN(NodeOut others, ctx->Op("Div", {p_none, x_safe}));
  ASSIGN_OR_RETURN(NodeOut p_single, ctx->Op("Mul", {single, p}));
  ASSIGN_OR_RETURN(NodeOut at_zero, ctx->Op("Mul", {p_single, is_zero}));
  ASSIGN_OR_RETURN(NodeOut factor, ctx->Op("Add", {others, at_zero}));
  ASSIGN_OR_RETURN(NodeOut out, ctx->Op("Mul", {g, factor}));
  *dx = {out, NodeOut{}};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(Prod, ProdGrad);

}  // namespace fb
