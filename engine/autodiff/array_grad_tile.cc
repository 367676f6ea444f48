// Gradient of Tile (whitepaper 4.1), after TensorFlow's _TileGrad: each input element received
// the incoming gradient of every tile it was copied to, so dx is dy summed over the tiles. With
// input shape [d0, d1, ...] and multiples [m0, m1, ...], dy is reshaped to the interleaved
// [m0, d0, m1, d1, ...] and summed over the even axes 0, 2, 4, ...; the shapes are read at run
// time (Shape), so unknown shapes work. `multiples` gets no gradient.
#include "engine/autodiff/gradient_registry.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

Status TileGrad(GradContext* c, const Grads& dy, Grads* dx) {
  NodeOut multiples = c->input(1);
  ASSIGN_OR_RETURN(NodeOut input_shape,
                   c->Op("Shape", {c->input(0)}, {{"out_type", multiples.dtype()}}));
  ASSIGN_OR_RETURN(Node * pack, c->Builder("Pack", "Pack")
                                    .Input(std::vector<NodeOut>{multiples, input_shape})
                                    .Attr("axis", int64_t{0})
                                    .Finalize(c->graph()));
  ASSIGN_OR_RETURN(NodeOut perm, c->Const(Tensor::FromVector<int32_t>({1, 0})));
  ASSIGN_OR_RETURN(NodeOut pairs, c->Op("Transpose", {NodeOut{pack, 0}, perm}));
  ASSIGN_OR_RETURN(NodeOut flat, c->Const(Tensor::FromVector<int32_t>({-1})));
  ASSIGN_OR_RETURN(NodeOut split_shape, c->Op("Reshape", {pairs, flat}));
  ASSIGN_OR_RETURN(NodeOut zero, c->Const(Tensor::Scalar<int32_t>(0)));
  ASSIGN_OR_RETURN(NodeOut two, c->Const(Tensor::Scalar<int32_t>(2)));
  ASSIGN_OR_RETURN(NodeOut size, c->Op("Size", {split_shape}, {{"out_type", DataType::kInt32}}));
  ASSIGN_OR_RETURN(NodeOut axes, c->Op("Range", {zero, size, two}));
  ASSIGN_OR_RETURN(NodeOut split, c->Op("Reshape", {dy[0], split_shape}));
  ASSIGN_OR_RETURN(NodeOut sum, c->Op("Sum", {split, axes}));
  *dx = {sum, NodeOut{}};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(Tile, TileGrad);

}  // namespace fb
