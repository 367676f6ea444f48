#include "kernels/cpu/batch_norm_io.h"

#include <string>

#include "kernels/cpu/nn_kernel_util.h"

namespace fb::batch_norm {
namespace {

// InvalidArgument unless t is 1-D with `channels` elements (or 0 with `may_be_empty`).
Status CheckChannelVector(const Tensor& t, const char* what, int64_t channels, bool may_be_empty) {
  if (t.dims() == 1 && (t.dim_size(0) == channels || (may_be_empty && t.dim_size(0) == 0)))
    return Status::OK();
  return InvalidArgument(what, " must be 1-D with ", channels, " elements (the channels of x)",
                         may_be_empty ? " or empty" : "", ", got shape ", t.shape().DebugString());
}

Status CheckNhwc(const Tensor& t, const char* what) {
  if (t.dims() == 4) return Status::OK();
  return InvalidArgument(what, " must be 4-D NHWC, got shape ", t.shape().DebugString());
}

Dims DimsOf(const Tensor& x) {
  Dims d;
  d.channels = x.dim_size(3);
  d.rows = d.channels == 0 ? 0 : x.NumElements() / d.channels;
  return d;
}

}  // namespace

Attrs ParseAttrs(OpKernelConstruction* ctx) {
  Attrs a;
  std::string format;
  ctx->SetStatus(ctx->GetAttr("epsilon", &a.epsilon));
  ctx->SetStatus(ctx->GetAttr("is_training", &a.is_training));
  ctx->SetStatus(ctx->GetAttr("data_format", &format));
  if (ctx->status().ok() && format != "NHWC")
    ctx->SetStatus(
        InvalidArgument("data_format \"", format, "\" is not supported (only \"NHWC\")"));
  if (ctx->status().ok() && !(a.epsilon >= 0))
    ctx->SetStatus(InvalidArgument("epsilon must be >= 0, got ", a.epsilon));
  return a;
}

StatusOr<Dims> AllocateForward(OpKernelContext* ctx, const Attrs& attrs, Tensor* out[5]) {
  const Tensor& x = ctx->input(0);
  RETURN_IF_ERROR(CheckNhwc(x, "x"));
  const Dims d = DimsOf(x);
  static const char* kNames[] = {"x", "scale", "offset", "mean", "variance"};
  for (int i = 1; i < 5; ++i)
    RETURN_IF_ERROR(
        CheckChannelVector(ctx->input(i), kNames[i], d.channels, attrs.is_training && i >= 3));
  RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out[0]));
  for (int i = 1; i < 5; ++i)
    RETURN_IF_ERROR(ctx->allocate_output(i, TensorShape({d.channels}), &out[i]));
  return d;
}

StatusOr<Dims> AllocateGrad(OpKernelContext* ctx, Tensor* out[5]) {
  const Tensor& dy = ctx->input(0);
  const Tensor& x = ctx->input(1);
  RETURN_IF_ERROR(CheckNhwc(dy, "y_backprop"));
  RETURN_IF_ERROR(CheckNhwc(x, "x"));
  RETURN_IF_ERROR(nn::CheckSameShape(dy, "y_backprop", x, "x"));
  const Dims d = DimsOf(x);
  static const char* kNames[] = {"y_backprop", "x", "scale", "reserve_space_1",
                                 "reserve_space_2"};
  for (int i = 2; i < 5; ++i)
    RETURN_IF_ERROR(CheckChannelVector(ctx->input(i), kNames[i], d.channels, false));
  RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out[0]));
  RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({d.channels}), &out[1]));
  RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({d.channels}), &out[2]));
  RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({0}), &out[3]));
  RETURN_IF_ERROR(ctx->allocate_output(4, TensorShape({0}), &out[4]));
  return d;
}

}  // namespace fb::batch_norm
