#pragma once
// Building blocks of the math gradient functions (math_grad*.cc), after TensorFlow's
// math_grad.py. Each adds nodes through the GradContext, so they are named under the gradient's
// scope and placed like the forward node.
#include <vector>

#include "engine/autodiff/gradient_registry.h"

namespace fb::grad {

// A scalar constant of `dtype` (float, double, int32 or int64; InvalidArgument otherwise).
StatusOr<NodeOut> Scalar(GradContext* ctx, DataType dtype, double value);
// An int32 vector constant (axes, shapes).
StatusOr<NodeOut> IntVector(GradContext* ctx, const std::vector<int32_t>& values);
// Cast(x) to `dtype`.
StatusOr<NodeOut> Cast(GradContext* ctx, NodeOut x, DataType dtype);
// 1 where x is NaN, 0 elsewhere, in x's dtype and shape: OnesLike(x) - Cast(Equal(x, x)).
// (All zeros for integer x.) Max-like gradients use it to route the gradient to a NaN.
StatusOr<NodeOut> IsNanMask(GradContext* ctx, NodeOut x);

// For z = f(x, y) with NumPy broadcasting, where gx and gy are the gradients with respect to x
// and y at z's (broadcast) shape: sums each over the axes its operand was repeated along and
// reshapes it to the operand's shape, TensorFlow's
//   rx, ry = BroadcastGradientArgs(Shape(x), Shape(y))
//   dx = Reshape(Sum(gx, rx), Shape(x)),  dy = Reshape(Sum(gy, ry), Shape(y)).
// An invalid gx or gy gives no gradient for that input. Sets (*dx) to the two results.
Status ReduceBroadcastGrads(GradContext* ctx, NodeOut gx, NodeOut gy, std::vector<NodeOut>* dx);

// `g` reshaped to the keep_dims shape of a reduction of `x` over `axes` (ReducedShape), so that
// it broadcasts against x. Returns g itself when keep_dims.
StatusOr<NodeOut> KeptDims(GradContext* ctx, NodeOut g, NodeOut x, NodeOut axes, bool keep_dims);

}  // namespace fb::grad
