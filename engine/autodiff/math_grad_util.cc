#include "engine/autodiff/math_grad_util.h"

namespace fb::grad {

StatusOr<NodeOut> Scalar(GradContext* ctx, DataType dtype, double value) {
  switch (dtype) {
    case DataType::kFloat: return ctx->Const(Tensor::Scalar<float>(static_cast<float>(value)));
    case DataType::kDouble: return ctx->Const(Tensor::Scalar<double>(value));
    case DataType::kInt32: return ctx->Const(Tensor::Scalar<int32_t>(static_cast<int32_t>(value)));
    case DataType::kInt64: return ctx->Const(Tensor::Scalar<int64_t>(static_cast<int64_t>(value)));
    default: return InvalidArgument("no scalar constant of type ", DataTypeString(dtype));
  }
}

StatusOr<NodeOut> IntVector(GradContext* ctx, const std::vector<int32_t>& values) {
  return ctx->Const(Tensor::FromVector<int32_t>(values));
}

StatusOr<NodeOut> Cast(GradContext* ctx, NodeOut x, DataType dtype) {
  return ctx->Op("Cast", {x}, {{"DstT", dtype}});
}

StatusOr<NodeOut> IsNanMask(GradContext* ctx, NodeOut x) {
  ASSIGN_OR_RETURN(NodeOut self_equal, ctx->Op("Equal", {x, x}));
  ASSIGN_OR_RETURN(NodeOut not_nan, Cast(ctx, self_equal, x.dtype()));
  ASSIGN_OR_RETURN(NodeOut ones, ctx->Op("OnesLike", {x}));
  return ctx->Op("Sub", {ones, not_nan});
}

Status ReduceBroadcastGrads(GradContext* ctx, NodeOut gx, NodeOut gy, std::vector<NodeOut>* dx) {
  ASSIGN_OR_RETURN(NodeOut sx, ctx->Op("Shape", {ctx->input(0)}));
  ASSIGN_OR_RETURN(NodeOut sy, ctx->Op("Shape", {ctx->input(1)}));
  ASSIGN_OR_RETURN(Node * args,
                   ctx->Builder("BroadcastGradientArgs", "BroadcastGradientArgs")
                       .Input(sx)
                       .Input(sy)
                       .Finalize(ctx->graph()));
  const NodeOut shapes[2] = {sx, sy};
  const NodeOut grads[2] = {gx, gy};
  dx->assign(2, NodeOut{});
  for (int i = 0; i < 2; ++i) {
    if (!grads[i].valid()) continue;
    ASSIGN_OR_RETURN(NodeOut sum, ctx->Op("Sum", {grads[i], NodeOut{args, i}}));
    ASSIGN_OR_RETURN((*dx)[i], ctx->Op("Reshape", {sum, shapes[i]}));
  }
  return Status::OK();
}

StatusOr<NodeOut> KeptDims(GradContext* ctx, NodeOut g, NodeOut x, NodeOut axes, bool keep_dims) {
  if (keep_dims) return g;
  ASSIGN_OR_RETURN(NodeOut shape, ctx->Op("Shape", {x}));
  ASSIGN_OR_RETURN(NodeOut kept, ctx->Op("ReducedShape", {shape, axes}));
  return ctx->Op("Reshape", {g, kept});
}

}  // namespace fb::grad
