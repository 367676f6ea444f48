// Tile of whitepaper Table 1 ("Array operations"; TensorFlow's array_ops.cc Tile): the input
// repeated multiples[i] times along each dimension i. Kernel: kernels/cpu/tile_kernels.cc;
// gradient (the sum over the tiles): engine/autodiff/array_grad_tile.cc.
#include <limits>

#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"
#include "engine/ops/array_tile_util.h"

namespace fb {

StatusOr<TensorShape> TileShape(const TensorShape& input, const std::vector<int64_t>& multiples) {
  if (static_cast<int>(multiples.size()) != input.rank())
    return InvalidArgument("multiples ", IntListString(multiples), " has ", multiples.size(),
                           " entries for input of shape ", input.DebugString(),
                           ": expected one per dimension");
  TensorShape out = input;
  for (int i = 0; i < input.rank(); ++i) {
    const int64_t d = input.dim_size(i), m = multiples[i];
    if (m < 0)
      return InvalidArgument("multiples ", IntListString(multiples), " must be >= 0, got ", m,
                             " for dimension ", i);
    if (d < 0) continue;
    if (m != 0 && d > std::numeric_limits<int64_t>::max() / m)
      return InvalidArgument("tiling dimension ", i, " of size ", d, " ", m,
                             " times overflows int64");
    out.set_dim(i, d * m);
  }
  if (out.IsFullyDefined()) RETURN_IF_ERROR(ValidateShape(out.dim_sizes(), "Tile output"));
  return out;
}

namespace {

Status TileShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(1, 1));
  const PartialShape& in = c->input(0);
  auto multiples = ConstIntInput(*c, 1);
  if (in && multiples) return SetOutputOrError(c, 0, TileShape(*in, *multiples));
  int rank = in ? in->rank() : -1;
  if (rank < 0 && c->input(1) && c->input(1)->dim_size(0) >= 0)
    rank = static_cast<int>(c->input(1)->dim_size(0));
  SetUnknownDims(c, 0, rank);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = \"int32\"")
    .SetShapeFn(TileShapeFn)
    .Doc(
        "`input` repeated multiples[i] times along dimension i (TensorFlow's Tile): "
        "output.shape[i] = input.shape[i] * multiples[i]. `multiples` is 1-D with one entry "
        ">= 0 per dimension of input.");

}  // namespace fb
