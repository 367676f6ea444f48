// Select and Where of whitepaper Table 1 ("Array operations"), with TensorFlow 1's semantics
// (array_ops.cc): Select(condition, t, e) picks elements of t where condition is true and of e
// elsewhere; condition is a scalar (picks all of t or all of e), has t's shape (element-wise) or
// is a vector of t's first dimension (picks whole rows). Where(input) lists the coordinates of
// the true (non-zero) elements. Kernels: kernels/cpu/select_kernels.cc; Select's gradient:
// engine/autodiff/array_grad_select.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_select_util.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

StatusOr<TensorShape> SelectShape(const TensorShape& condition, const TensorShape& t,
                                  const TensorShape& e) {
  auto mismatch = [&] {
    return InvalidArgument("t and e must have the same shape, got ", t.DebugString(), " and ",
                           e.DebugString());
  };
  if (t.rank() != e.rank()) return mismatch();
  TensorShape out = t;
  for (int i = 0; i < t.rank(); ++i) {
    int64_t a = t.dim_size(i), b = e.dim_size(i);
    if (a >= 0 && b >= 0 && a != b) return mismatch();
    out.set_dim(i, a >= 0 ? a : b);
  }
  if (condition.rank() == 0) return out;
  bool same = condition.rank() == out.rank(), row = condition.rank() == 1 && out.rank() >= 1;
  for (int i = 0; same && i < out.rank(); ++i) {
    int64_t a = condition.dim_size(i), b = out.dim_size(i);
    same = a < 0 || b < 0 || a == b;
  }
  if (row) {
    int64_t a = condition.dim_size(0), b = out.dim_size(0);
    row = a < 0 || b < 0 || a == b;
  }
  if (!same && !row)
    return InvalidArgument("condition must be a scalar, have the shape of t ", out.DebugString(),
                           " or be a vector of its first dimension, got shape ",
                           condition.DebugString());
  return out;
}

namespace {

Status SelectShapeFn(InferenceContext* c) {
  const PartialShape &cond = c->input(0), &t = c->input(1), &e = c->input(2);
  if (!t || !e) {
    c->set_output(0, t ? t : e);
    return Status::OK();
  }
  auto out = SelectShape(cond ? *cond : TensorShape{}, *t, *e);
  return SetOutputOrError(c, 0, out);
}

Status WhereShapeFn(InferenceContext* c) {
  c->set_output(0, TensorShape{-1, c->input(0) ? c->input(0)->rank() : -1});
  return Status::OK();
}

}  // namespace

REGISTER_OP("Select")
    .Input("condition: bool")
    .Input("t: T")
    .Input("e: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(SelectShapeFn)
    .Doc(
        "Elements of t where condition is true, of e elsewhere (TensorFlow 1's Select). t and e "
        "have the same shape; condition is a scalar, has that shape, or is a vector of its first "
        "dimension selecting whole rows. InvalidArgument otherwise.");

REGISTER_OP("Where")
    .Input("input: T")
    .Output("index: int64")
    .Attr("T: {bool, float, double, int32, int64} = \"bool\"")
    .SetShapeFn(WhereShapeFn)
    .Doc(
        "The coordinates of the true (non-zero) elements of `input`, one row each in row-major "
        "order: int64 [N, rank(input)] (TensorFlow's Where with one input).");

}  // namespace fb
