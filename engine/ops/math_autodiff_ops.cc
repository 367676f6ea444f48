// Ops that automatic differentiation (whitepaper 4.1) builds into gradient graphs: the seed and
// zero gradients (OnesLike, ZerosLike, Fill) and the shape arithmetic that sums a broadcast
// gradient back to its input's shape (BroadcastGradientArgs, ReducedShape), after TensorFlow's
// array_ops and math_grad.py. Kernels: kernels/cpu/fill_kernels.cc, kernels/cpu/bcast_kernels.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/math_reduction_util.h"

namespace fb {
namespace {

constexpr const char* kFillTypes = "T: {float, double, int32, int64, bool}";

// Output 0 is a vector as long as input 0 (a shape vector), or unknown.
Status SameLengthVector(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(0, 1));
  c->set_output(0, c->input(0) ? c->input(0) : TensorShape{-1});
  return Status::OK();
}

Status FillShape(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(0, 1));
  RETURN_IF_ERROR(c->WithRank(1, 0));
  const Tensor* dims = c->input_tensor(0);
  if (!dims) {
    int64_t rank = c->input(0) ? c->input(0)->dim_size(0) : -1;
    if (rank < 0) c->set_output(0, std::nullopt);
    else c->set_output(0, TensorShape(std::vector<int64_t>(rank, -1)));
    return Status::OK();
  }
  auto values = IndexValues(*dims, "dims");
  if (!values.ok()) return c->Error(values.status().message());
  RETURN_IF_ERROR(ValidateShape(*values, "Fill '" + c->node_name() + "' dims"));
  c->set_output(0, TensorShape(*values));
  return Status::OK();
}

}  // namespace

REGISTER_OP("ZerosLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFillTypes)
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Zeros of x's shape and type. The gradient of an output the cost does not depend on.");

REGISTER_OP("OnesLike")
    .Input("x: T")
    .Output("y: T")
    .Attr(kFillTypes)
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Ones of x's shape and type (true for bool). Seeds AddSymbolicGradients: dy/dy = 1.");

REGISTER_OP("Fill")
    .Input("dims: index_type")
    .Input("value: T")
    .Output("output: T")
    .Attr(kFillTypes)
    .Attr("index_type: {int32, int64} = \"int32\"")
    .SetShapeFn(FillShape)
    .Doc("A tensor of shape `dims` (a vector, every entry >= 0) filled with the scalar `value`.");

REGISTER_OP("BroadcastGradientArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Output("r1: T")
    .Attr("T: {int32, int64} = \"int32\"")
    .SetShapeFn([](InferenceContext* c) {
      RETURN_IF_ERROR(c->WithRank(0, 1));
      RETURN_IF_ERROR(c->WithRank(1, 1));
      c->set_output(0, TensorShape{-1});
      c->set_output(1, TensorShape{-1});
      return Status::OK();
    })
    .Doc("For shapes s0 and s1 of two operands of a broadcasting binary op, the axes of the "
         "broadcast output that each operand was repeated along: summing the output's gradient "
         "over r0 (r1) and reshaping to s0 (s1) gives the operand's gradient. InvalidArgument if "
         "the shapes do not broadcast. TensorFlow's op of the same name.");

REGISTER_OP("ReducedShape")
    .Input("input_shape: int32")
    .Input("axes: Tidx")
    .Output("output: int32")
    .Attr("Tidx: {int32, int64} = \"int32\"")
    .SetShapeFn(SameLengthVector)
    .Doc("input_shape with the dimensions in `axes` set to 1: the keep_dims shape of a reduction "
         "of a tensor of shape input_shape, used to reshape a reduction's gradient so that it "
         "broadcasts back (TensorFlow's math_ops.reduced_shape). Negative axes count from the "
         "end.");

}  // namespace fb
