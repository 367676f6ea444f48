// Transpose and InvertPermutation (whitepaper Table 1; InvertPermutation builds Transpose's
// gradient). Definitions follow TensorFlow's array_ops.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

namespace {

Status TransposeShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(1, 1));
  auto perm = ConstIntInput(*c, 1);
  if (c->input(0) && perm) return SetOutputOrError(c, 0, TransposeShape(*c->input(0), *perm));
  int rank = c->input(0) ? c->input(0)->rank() : -1;
  if (rank < 0 && c->input(1) && c->input(1)->dim_size(0) >= 0)
    rank = static_cast<int>(c->input(1)->dim_size(0));
  SetUnknownDims(c, 0, rank);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = int32")
    .SetShapeFn(TransposeShapeFn)
    .Doc("y.shape[i] = x.shape[perm[i]] and y[i_0, ...] = x[i_perm^-1...]: the dimensions of `x` "
         "reordered by `perm`, a permutation of [0, rank).");

REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) {
      RETURN_IF_ERROR(c->WithRank(0, 1));
      c->set_output(0, c->input(0));
      return Status::OK();
    })
    .Doc("y[x[i]] = i for a permutation `x` of [0, n). Anything else is an InvalidArgument error.");

}  // namespace fb
