// Batch normalization (Ioffe and Szegedy, ICML 2015) as TensorFlow's fused ops (nn_ops.cc,
// FusedBatchNorm / FusedBatchNormGrad, v1 attrs), NHWC only. x [N, H, W, C]; scale, offset,
// mean, variance [C]. Kernels: kernels/cpu/batch_norm_kernels.cc; gradient:
// engine/autodiff/nn_grad_batch_norm.cc. dtype float (TensorFlow's), and double so that the
// numerical gradient checks of tests/gradient_checker.h can run in float64.
#include "engine/ops/nn_ops_common.h"

namespace fb {
namespace {

Status CheckNhwc(InferenceContext* c) {
  std::string format;
  RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (format != "NHWC")
    return c->Error("data_format \"", format, "\" is not supported (only \"NHWC\")");
  return Status::OK();
}

// Merges the channel count of 1-D input i (named `what`) into *channels. With `may_be_empty`
// an input of size 0 is accepted as "not given" (training mode's mean and variance).
Status MergeChannels(InferenceContext* c, int i, const char* what, bool may_be_empty,
                     int64_t* channels) {
  const PartialShape& s = c->input(i);
  if (!s) return Status::OK();
  if (s->rank() != 1) return c->Error(what, " must be 1-D [C], got shape ", s->DebugString());
  const int64_t n = s->dim_size(0);
  if (may_be_empty && n == 0) return Status::OK();
  if (n >= 0 && *channels >= 0 && n != *channels)
    return c->Error(what, " must have ", *channels, " elements (the channels of x), got shape ",
                    s->DebugString());
  if (*channels < 0) *channels = n;
  return Status::OK();
}

// Checks input x_index is 4-D NHWC and returns its dims (unknown rank: 4 unknown dims).
StatusOr<std::vector<int64_t>> NhwcDims(InferenceContext* c, int x_index, const char* what) {
  std::vector<int64_t> x = DimsOrUnknown(c->input(x_index), 4);
  if (x.size() != 4) return c->Error(what, " must be 4-D NHWC, got shape ", DimsString(x));
  return x;
}

// x, scale, offset, mean, variance -> y, batch_mean, batch_variance, reserve_space_1, _2.
Status FusedBatchNormShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(CheckNhwc(c));
  bool is_training = true;
  RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  ASSIGN_OR_RETURN(std::vector<int64_t> x, NhwcDims(c, 0, "x"));
  int64_t channels = x[3];
  RETURN_IF_ERROR(MergeChannels(c, 1, "scale", false, &channels));
  RETURN_IF_ERROR(MergeChannels(c, 2, "offset", false, &channels));
  RETURN_IF_ERROR(MergeChannels(c, 3, "mean", is_training, &channels));
  RETURN_IF_ERROR(MergeChannels(c, 4, "variance", is_training, &channels));
  x[3] = channels;
  c->set_output(0, TensorShape(x));
  for (int i = 1; i < 5; ++i) c->set_output(i, TensorShape({channels}));
  return Status::OK();
}

// y_backprop, x, scale, reserve_space_1, reserve_space_2 -> x_backprop, scale_backprop,
// offset_backprop, reserve_space_3, reserve_space_4.
Status FusedBatchNormGradShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(CheckNhwc(c));
  ASSIGN_OR_RETURN(std::vector<int64_t> dy, NhwcDims(c, 0, "y_backprop"));
  ASSIGN_OR_RETURN(std::vector<int64_t> x, NhwcDims(c, 1, "x"));
  for (int i = 0; i < 4; ++i)
    if (dy[i] >= 0 && x[i] >= 0 && dy[i] != x[i])
      return c->Error("y_backprop has shape ", DimsString(dy), " but x has ", DimsString(x));
  for (int i = 0; i < 4; ++i)
    if (x[i] < 0) x[i] = dy[i];
  int64_t channels = x[3];
  RETURN_IF_ERROR(MergeChannels(c, 2, "scale", false, &channels));
  RETURN_IF_ERROR(MergeChannels(c, 3, "reserve_space_1", false, &channels));
  RETURN_IF_ERROR(MergeChannels(c, 4, "reserve_space_2", false, &channels));
  x[3] = channels;
  c->set_output(0, TensorShape(x));
  c->set_output(1, TensorShape({channels}));
  c->set_output(2, TensorShape({channels}));
  c->set_output(3, TensorShape({0}));
  c->set_output(4, TensorShape({0}));
  return Status::OK();
}

OpDefBuilder& BatchNormAttrs(OpDefBuilder& b) {
  return b.Attr("T: {float, double}")
      .Attr("epsilon: float = 0.0001")
      .Attr("data_format: string = \"NHWC\"")
      .Attr("is_training: bool = true");
}

OpDefBuilder FusedBatchNormDef() {
  OpDefBuilder b("FusedBatchNorm");
  b.Input("x: T").Input("scale: T").Input("offset: T").Input("mean: T").Input("variance: T");
  b.Output("y: T").Output("batch_mean: T").Output("batch_variance: T");
  b.Output("reserve_space_1: T").Output("reserve_space_2: T");
  return BatchNormAttrs(b)
      .SetShapeFn(FusedBatchNormShapeFn)
      .Doc(
          "Batch normalization over N, H, W per channel: y = (x - m) * scale / "
          "sqrt(v + epsilon) + offset. is_training: m, v are the batch's mean and biased "
          "variance; batch_mean = m, batch_variance = v * M / (M - 1) (Bessel-corrected, "
          "M = N*H*W > 1; for moving averages), reserve_space_1 = m, reserve_space_2 = v "
          "(biased); mean and variance may be empty [0]. Otherwise m, v are the inputs mean "
          "and variance, copied to batch_mean/reserve_space_1 and batch_variance/"
          "reserve_space_2. NHWC only.");
}

OpDefBuilder FusedBatchNormGradDef() {
  OpDefBuilder b("FusedBatchNormGrad");
  b.Input("y_backprop: T").Input("x: T").Input("scale: T").Input("reserve_space_1: T");
  b.Input("reserve_space_2: T");
  b.Output("x_backprop: T").Output("scale_backprop: T").Output("offset_backprop: T");
  b.Output("reserve_space_3: T").Output("reserve_space_4: T");
  return BatchNormAttrs(b)
      .SetShapeFn(FusedBatchNormGradShapeFn)
      .Doc(
          "Gradient of FusedBatchNorm w.r.t. x, scale and offset, given y_backprop and the "
          "forward's x, scale and reserve spaces (mean and variance used). offset_backprop = "
          "sum(dy), scale_backprop = sum(dy * xhat) with xhat = (x - m) / sqrt(v + epsilon); "
          "x_backprop = scale / sqrt(v + epsilon) * (dy - mean(dy) - xhat * mean(dy * xhat)) "
          "when is_training, else scale / sqrt(v + epsilon) * dy. reserve_space_3/_4 are "
          "empty [0]. NHWC only.");
}

}  // namespace

static register_op::Registrar fb_fused_batch_norm_registrar(FusedBatchNormDef());
static register_op::Registrar fb_fused_batch_norm_grad_registrar(FusedBatchNormGradDef());

}  // namespace fb
