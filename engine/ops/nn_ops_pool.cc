// MaxPool and AvgPool over NHWC tensors (whitepaper Table 1, "MaxPool") and their gradient ops.
// ksize and strides are [1, rows, cols, 1]; padding SAME or VALID (engine/ops/nn_ops_common.h).
// SAME padding is never part of a window: MaxPool ignores it and AvgPool divides by the number
// of input elements inside the window, as TensorFlow does.
#include "engine/ops/nn_ops_common.h"

namespace fb {

namespace {

OpDefBuilder& PoolAttrs(OpDefBuilder& b) {
  return b.Attr("T: {float, double}")
      .Attr("ksize: list(int)")
      .Attr("strides: list(int)")
      .Attr("padding: string")
      .Attr("data_format: string = \"NHWC\"");
}

StatusOr<Conv2DShape> InferPool(InferenceContext* c, const std::vector<int64_t>& input) {
  auto attrs = ParseWindow2DAttrs(c->attrs(), /*pooling=*/true);
  if (!attrs.ok()) return NodeError(c, attrs.status());
  auto shape = ComputePool2DShape(input, *attrs);
  if (!shape.ok()) return NodeError(c, shape.status());
  return shape;
}

Status PoolShapeFn(InferenceContext* c) {
  ASSIGN_OR_RETURN(Conv2DShape s, InferPool(c, DimsOrUnknown(c->input(0), 4)));
  c->set_output(0, TensorShape(s.OutputDims()));
  return Status::OK();
}

// Checks that input `i` has the pooled output's shape.
Status CheckPooledShape(InferenceContext* c, const Conv2DShape& s, int i, const char* what) {
  std::vector<int64_t> got = DimsOrUnknown(c->input(i), 4), want = s.OutputDims();
  bool ok = got.size() == 4;
  for (size_t k = 0; ok && k < 4; ++k) ok = got[k] < 0 || want[k] < 0 || got[k] == want[k];
  if (!ok)
    return c->Error(what, " must have the pooled shape ", DimsString(want), ", got shape ",
                    DimsString(got));
  return Status::OK();
}

Status MaxPoolGradShapeFn(InferenceContext* c) {
  std::vector<int64_t> input = DimsOrUnknown(c->input(0), 4);
  ASSIGN_OR_RETURN(Conv2DShape s, InferPool(c, input));
  RETURN_IF_ERROR(CheckPooledShape(c, s, 1, "orig_output"));
  RETURN_IF_ERROR(CheckPooledShape(c, s, 2, "grad"));
  c->set_output(0, TensorShape(input));
  return Status::OK();
}

Status AvgPoolGradShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(0, 1));
  ASSIGN_OR_RETURN(std::vector<int64_t> input, ConstantDimsOrUnknown(c, 0, 4));
  ASSIGN_OR_RETURN(Conv2DShape s, InferPool(c, input));
  RETURN_IF_ERROR(CheckPooledShape(c, s, 1, "grad"));
  c->set_output(0, TensorShape(input));
  return Status::OK();
}

OpDefBuilder MaxPoolDef() {
  OpDefBuilder b("MaxPool");
  b.Input("input: T").Output("output: T");
  return PoolAttrs(b).SetShapeFn(PoolShapeFn).Doc(
      "Maximum over each ksize window of the NHWC input, per channel (NaN if the window holds "
      "a NaN).");
}

OpDefBuilder AvgPoolDef() {
  OpDefBuilder b("AvgPool");
  b.Input("value: T").Output("output: T");
  return PoolAttrs(b).SetShapeFn(PoolShapeFn).Doc(
      "Mean over each ksize window of the NHWC input, per channel (padding excluded).");
}

OpDefBuilder MaxPoolGradDef() {
  OpDefBuilder b("MaxPoolGrad");
  b.Input("orig_input: T").Input("orig_output: T").Input("grad: T").Output("output: T");
  return PoolAttrs(b).SetShapeFn(MaxPoolGradShapeFn).Doc(
      "Gradient of MaxPool w.r.t. its input: each grad value is routed to the first (in row-major "
      "window order) input element that attained the window's maximum, or to the window's first "
      "NaN. Output: orig_input's shape.");
}

OpDefBuilder AvgPoolGradDef() {
  OpDefBuilder b("AvgPoolGrad");
  b.Input("orig_input_shape: int32").Input("grad: T").Output("output: T");
  return PoolAttrs(b).SetShapeFn(AvgPoolGradShapeFn).Doc(
      "Gradient of AvgPool w.r.t. its input: each grad value is spread evenly over the input "
      "elements of its window. orig_input_shape: the input's shape [4] (int32).");
}

}  // namespace

static register_op::Registrar fb_max_pool_registrar(MaxPoolDef());
static register_op::Registrar fb_avg_pool_registrar(AvgPoolDef());
static register_op::Registrar fb_max_pool_grad_registrar(MaxPoolGradDef());
static register_op::Registrar fb_avg_pool_grad_registrar(AvgPoolGradDef());

}  // namespace fb
