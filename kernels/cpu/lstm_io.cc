#include "kernels/cpu/lstm_io.h"

#include <cmath>
#include <limits>

namespace fb::lstm {
namespace {

Status CheckMatrix(const Tensor& t, const char* what, int64_t rows, int64_t cols) {
  if (t.dims() == 2 && t.dim_size(0) == rows && t.dim_size(1) == cols) return Status::OK();
  return InvalidArgument(what, " must have shape [", rows, ",", cols, "], got ",
                         t.shape().DebugString());
}

Status CheckVector(const Tensor& t, const char* what, int64_t n) {
  if (t.dims() == 1 && t.dim_size(0) == n) return Status::OK();
  return InvalidArgument(what, " must have shape [", n, "], got ", t.shape().DebugString());
}

StatusOr<Dims> CheckCellInputs(OpKernelContext* ctx) {
  const Tensor &x = ctx->input(0), &h_prev = ctx->input(2), &b = ctx->input(7);
  if (x.dims() != 2)
    return InvalidArgument("x must be 2-D [batch, input], got ", x.shape().DebugString());
  if (h_prev.dims() != 2)
    return InvalidArgument("h_prev must be 2-D [batch, hidden], got ",
                           h_prev.shape().DebugString());
  if (b.dims() != 1 || b.dim_size(0) % 4 != 0)
    return InvalidArgument("b must be 1-D [4 * cells], got ", b.shape().DebugString());
  Dims d{x.dim_size(0), x.dim_size(1), h_prev.dim_size(1), b.dim_size(0) / 4};
  RETURN_IF_ERROR(CheckMatrix(ctx->input(1), "cs_prev", d.batch, d.cells));
  RETURN_IF_ERROR(CheckMatrix(h_prev, "h_prev", d.batch, d.hidden));
  RETURN_IF_ERROR(CheckMatrix(ctx->input(3), "w", d.input + d.hidden, 4 * d.cells));
  RETURN_IF_ERROR(CheckVector(ctx->input(4), "wci", d.cells));
  RETURN_IF_ERROR(CheckVector(ctx->input(5), "wcf", d.cells));
  RETURN_IF_ERROR(CheckVector(ctx->input(6), "wco", d.cells));
  // The GEMM's sizes are BLAS ints (cuBLAS's too).
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  if (d.batch > kMax || d.input + d.hidden > kMax || 4 * d.cells > kMax)
    return InvalidArgument("LSTMBlockCell sizes exceed what BLAS indexes (int): batch ", d.batch,
                           ", input + hidden ", d.input + d.hidden, ", 4 * cells ", 4 * d.cells);
  return d;
}

}  // namespace

Attrs ParseAttrs(OpKernelConstruction* ctx, bool grad) {
  Attrs a;
  ctx->SetStatus(ctx->GetAttr("use_peephole", &a.use_peephole));
  if (grad) return a;
  ctx->SetStatus(ctx->GetAttr("forget_bias", &a.forget_bias));
  ctx->SetStatus(ctx->GetAttr("cell_clip", &a.cell_clip));
  if (ctx->status().ok() && !(std::isfinite(a.forget_bias) && std::isfinite(a.cell_clip)))
    ctx->SetStatus(InvalidArgument("forget_bias and cell_clip must be finite, got ", a.forget_bias,
                                   " and ", a.cell_clip));
  return a;
}

StatusOr<Dims> CheckAndAllocate(OpKernelContext* ctx, bool grad, Tensor* out[7]) {
  ASSIGN_OR_RETURN(Dims d, CheckCellInputs(ctx));
  const TensorShape state({d.batch, d.cells});
  if (!grad) {
    for (int i = 0; i < 7; ++i) RETURN_IF_ERROR(ctx->allocate_output(i, state, &out[i]));
    return d;
  }
  static const char* const kNames[] = {"i", "cs", "f", "o", "ci", "co", "cs_grad", "h_grad"};
  for (int i = 8; i < 16; ++i)
    RETURN_IF_ERROR(CheckMatrix(ctx->input(i), kNames[i - 8], d.batch, d.cells));
  RETURN_IF_ERROR(ctx->allocate_output(0, state, &out[0]));
  RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({d.batch, 4 * d.cells}), &out[1]));
  for (int i = 2; i < 5; ++i)
    RETURN_IF_ERROR(ctx->allocate_output(i, TensorShape({d.cells}), &out[i]));
  return d;
}

}  // namespace fb::lstm
