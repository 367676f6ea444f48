// Conv2D and its two backprops (whitepaper Table 1, "Convolution"; gradients 4.1). NHWC input
// [batch, rows, cols, in_depth], HWIO filter [filter_rows, filter_cols, in_depth, out_depth],
// NHWC output [batch, out_rows, out_cols, out_depth]; output sizes and padding as in
// engine/ops/nn_ops_common.h (TensorFlow's SAME/VALID rules).
#include "engine/ops/nn_ops_common.h"

namespace fb {

namespace {

// Common attrs of the three ops.
OpDefBuilder& ConvAttrs(OpDefBuilder& b) {
  return b.Attr("T: {float, double}")
      .Attr("strides: list(int)")
      .Attr("use_cudnn_on_gpu: bool = true")
      .Attr("padding: string")
      .Attr("data_format: string = \"NHWC\"")
      .Attr("dilations: list(int) = [1, 1, 1, 1]");
}

StatusOr<Conv2DShape> InferConv(InferenceContext* c, const std::vector<int64_t>& input,
                                const std::vector<int64_t>& filter) {
  auto attrs = ParseWindow2DAttrs(c->attrs(), /*pooling=*/false);
  if (!attrs.ok()) return NodeError(c, attrs.status());
  auto shape = ComputeConv2DShape(input, filter, *attrs);
  if (!shape.ok()) return NodeError(c, shape.status());
  return shape;
}

Status Conv2DShapeFn(InferenceContext* c) {
  ASSIGN_OR_RETURN(Conv2DShape s,
                   InferConv(c, DimsOrUnknown(c->input(0), 4), DimsOrUnknown(c->input(1), 4)));
  c->set_output(0, TensorShape(s.OutputDims()));
  return Status::OK();
}

// Checks out_backprop against the forward geometry implied by input and filter dims.
Status CheckOutBackprop(InferenceContext* c, const Conv2DShape& s, int out_backprop_index) {
  std::vector<int64_t> dy = DimsOrUnknown(c->input(out_backprop_index), 4);
  if (dy.size() != 4)
    return c->Error("out_backprop must be 4-D NHWC, got shape ", DimsString(dy));
  std::vector<int64_t> want = s.OutputDims();
  for (int i = 0; i < 4; ++i)
    if (dy[i] >= 0 && want[i] >= 0 && dy[i] != want[i])
      return c->Error("out_backprop has shape ", DimsString(dy), " but the forward output is ",
                      DimsString(want));
  return Status::OK();
}

Status BackpropInputShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(0, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> input, ConstantDimsOrUnknown(c, 0, 4));
  ASSIGN_OR_RETURN(Conv2DShape s, InferConv(c, input, DimsOrUnknown(c->input(1), 4)));
  RETURN_IF_ERROR(CheckOutBackprop(c, s, 2));
  c->set_output(0, TensorShape(input));
  return Status::OK();
}

Status BackpropFilterShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(1, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> filter, ConstantDimsOrUnknown(c, 1, 4));
  ASSIGN_OR_RETURN(Conv2DShape s, InferConv(c, DimsOrUnknown(c->input(0), 4), filter));
  RETURN_IF_ERROR(CheckOutBackprop(c, s, 2));
  c->set_output(0, TensorShape(filter));
  return Status::OK();
}

OpDefBuilder Conv2DDef() {
  OpDefBuilder b("Conv2D");
  b.Input("input: T").Input("filter: T").Output("output: T");
  return ConvAttrs(b)
      .SetShapeFn(Conv2DShapeFn)
      .Doc("2-D convolution (cross-correlation, as in TensorFlow): output[n, i, j, o] = "
           "sum_{di, dj, c} input[n, i*sh + di*dh - pad_top, j*sw + dj*dw - pad_left, c] * "
           "filter[di, dj, c, o]. strides [1, sh, sw, 1], dilations [1, dh, dw, 1], padding "
           "SAME or VALID, data_format NHWC only.");
}

OpDefBuilder BackpropInputDef() {
  OpDefBuilder b("Conv2DBackpropInput");
  b.Input("input_sizes: int32").Input("filter: T").Input("out_backprop: T").Output("output: T");
  return ConvAttrs(b)
      .SetShapeFn(BackpropInputShapeFn)
      .Doc("Gradient of Conv2D w.r.t. its input: input_sizes is the input's shape [4] (int32), "
           "out_backprop the gradient w.r.t. Conv2D's output. Output has shape input_sizes.");
}

OpDefBuilder BackpropFilterDef() {
  OpDefBuilder b("Conv2DBackpropFilter");
  b.Input("input: T").Input("filter_sizes: int32").Input("out_backprop: T").Output("output: T");
  return ConvAttrs(b)
      .SetShapeFn(BackpropFilterShapeFn)
      .Doc("Gradient of Conv2D w.r.t. its filter: filter_sizes is the filter's shape [4] (int32), "
           "out_backprop the gradient w.r.t. Conv2D's output. Output has shape filter_sizes.");
}

// Conv2D's output shape; bias must be 1-D of out_depth.
Status FusedConv2DShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(Conv2DShapeFn(c));
  std::vector<int64_t> bias = DimsOrUnknown(c->input(2), 1);
  std::vector<int64_t> filter = DimsOrUnknown(c->input(1), 4);
  if (bias.size() != 1) return c->Error("bias must be 1-D, got shape ", DimsString(bias));
  if (bias[0] >= 0 && filter[3] >= 0 && bias[0] != filter[3])
    return c->Error("bias has ", bias[0], " values but the filter has out_depth ", filter[3],
                    " (filter shape ", DimsString(filter), ")");
  return Status::OK();
}

// TensorFlow's _FusedConv2D (grappler remapper): added only by the fuse_conv_bias_relu pass
// (engine/passes/fuse_conv_bias_relu.h), never built by clients, so it has no gradient.
OpDefBuilder FusedConv2DDef() {
  OpDefBuilder b("_FusedConv2D");
  b.Input("input: T").Input("filter: T").Input("bias: T").Output("output: T");
  return ConvAttrs(b)
      .Attr("fused_ops: list(string)")
      .SetShapeFn(FusedConv2DShapeFn)
      .Doc("Conv2D (same attrs) followed by the ops of fused_ops on its output in one kernel: "
           "[\"BiasAdd\"] adds bias [out_depth] along the last dimension, [\"BiasAdd\", "
           "\"Relu\"] then takes max(x, 0) (NaN stays NaN). Equal to the unfused ops.");
}

}  // namespace

static register_op::Registrar fb_conv2d_registrar(Conv2DDef());
static register_op::Registrar fb_fused_conv2d_registrar(FusedConv2DDef());
static register_op::Registrar fb_conv2d_backprop_input_registrar(BackpropInputDef());
static register_op::Registrar fb_conv2d_backprop_filter_registrar(BackpropFilterDef());

}  // namespace fb
