// Gradients of StridedSlice and StridedSliceGrad (whitepaper 4.1), after TensorFlow's
// array_grad.py: StridedSlice's input gets StridedSliceGrad(Shape(x), begin, end, strides, dy)
// with the forward masks (dy scattered into zeros of x's shape); StridedSliceGrad's dy input gets
// the same slice of the incoming gradient. begin, end, strides and shape get none.
#include "engine/autodiff/gradient_registry.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

// The forward node's mask attrs (and Index), which both ops share.
AttrMap MaskAttrs(GradContext* c) {
  AttrMap attrs;
  for (const char* name :
       {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
    auto it = c->node()->def().attrs.find(name);
    if (it != c->node()->def().attrs.end()) attrs[name] = it->second;
  }
  return attrs;
}

Status StridedSliceGradFn(GradContext* c, const Grads& dy, Grads* dx) {
  NodeOut begin = c->input(1);
  ASSIGN_OR_RETURN(NodeOut shape, c->Op("Shape", {c->input(0)}, {{"out_type", begin.dtype()}}));
  ASSIGN_OR_RETURN(NodeOut g, c->Op("StridedSliceGrad",
                                    {shape, begin, c->input(2), c->input(3), dy[0]}, MaskAttrs(c)));
  *dx = {g, NodeOut{}, NodeOut{}, NodeOut{}};
  return Status::OK();
}

Status StridedSliceGradGradFn(GradContext* c, const Grads& dy, Grads* dx) {
  ASSIGN_OR_RETURN(NodeOut g, c->Op("StridedSlice", {dy[0], c->input(1), c->input(2), c->input(3)},
                                    MaskAttrs(c)));
  *dx = {NodeOut{}, NodeOut{}, NodeOut{}, NodeOut{}, g};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(StridedSlice, StridedSliceGradFn);
REGISTER_GRADIENT(StridedSliceGrad, StridedSliceGradGradFn);

}  // namespace fb
