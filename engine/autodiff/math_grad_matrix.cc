// Gradients of the matrix ops (whitepaper 4.1), after TensorFlow's math_grad.py and
// linalg_grad.py. g is dL/d(output); matrices are the last two dimensions.
#include "engine/autodiff/math_grad_util.h"

namespace fb {
namespace {

using Grads = std::vector<NodeOut>;

// C = op(A) op(B), for MatMul (attrs transpose_a/b) and BatchMatMul (adj_x/y). With G = dL/dC:
//   C = A B:      dA = G B^T,      dB = A^T G
//   C = A B^T:    dA = G B,        dB = G^T A
//   C = A^T B:    dA = B G^T,      dB = A G
//   C = A^T B^T:  dA = B^T G^T,    dB = G^T A^T
Status ProductGrad(GradContext* ctx, const Grads& dy, Grads* dx, const char* op,
                   const char* ta_attr, const char* tb_attr) {
  bool ta = false, tb = false;
  RETURN_IF_ERROR(ctx->GetAttr(ta_attr, &ta));
  RETURN_IF_ERROR(ctx->GetAttr(tb_attr, &tb));
  NodeOut a = ctx->input(0), b = ctx->input(1), g = dy[0];
  struct Product {
    NodeOut x, y;
    bool tx, ty;
  };
  // {dA, dB} for each (ta, tb), in the order of the table above.
  const Product table[2][2][2] = {
      {{{g, b, false, true}, {a, g, true, false}}, {{g, b, false, false}, {g, a, true, false}}},
      {{{b, g, false, true}, {a, g, false, false}}, {{b, g, true, true}, {g, a, true, true}}},
  };
  dx->clear();
  for (const Product& p : table[ta][tb]) {
    ASSIGN_OR_RETURN(NodeOut d, ctx->Op(op, {p.x, p.y}, {{ta_attr, p.tx}, {tb_attr, p.ty}}));
    dx->push_back(d);
  }
  return Status::OK();
}

Status MatMulGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  return ProductGrad(ctx, dy, dx, "MatMul", "transpose_a", "transpose_b");
}

Status BatchMatMulGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  return ProductGrad(ctx, dy, dx, "BatchMatMul", "adj_x", "adj_y");
}

// Y = A^-1:      dA = -Y^T G Y^T.
// Y = (A^T)^-1:  dA = -Y G^T Y   (adjoint).
Status MatrixInverseGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  bool adjoint = false;
  RETURN_IF_ERROR(ctx->GetAttr("adjoint", &adjoint));
  NodeOut y = ctx->output(0);
  ASSIGN_OR_RETURN(NodeOut inner, ctx->Op("BatchMatMul", {dy[0], y},
                                          {{"adj_x", adjoint}, {"adj_y", !adjoint}}));
  ASSIGN_OR_RETURN(NodeOut outer, ctx->Op("BatchMatMul", {y, inner}, {{"adj_x", !adjoint}}));
  ASSIGN_OR_RETURN(NodeOut neg, ctx->Op("Neg", {outer}));
  *dx = {neg};
  return Status::OK();
}

// d det(A) / dA = det(A) A^-T (Jacobi's formula): dA = (g det)[..., 1, 1] * MatrixInverse(A)^T.
Status MatrixDeterminantGrad(GradContext* ctx, const Grads& dy, Grads* dx) {
  NodeOut a = ctx->input(0);
  ASSIGN_OR_RETURN(NodeOut scale, ctx->Op("Mul", {dy[0], ctx->output(0)}));
  ASSIGN_OR_RETURN(NodeOut matrix_axes, grad::IntVector(ctx, {-2, -1}));
  ASSIGN_OR_RETURN(NodeOut shape, ctx->Op("Shape", {a}));
  ASSIGN_OR_RETURN(NodeOut kept, ctx->Op("ReducedShape", {shape, matrix_axes}));
  ASSIGN_OR_RETURN(NodeOut scale_kept, ctx->Op("Reshape", {scale, kept}));
  ASSIGN_OR_RETURN(NodeOut inv_t, ctx->Op("MatrixInverse", {a}, {{"adjoint", true}}));
  ASSIGN_OR_RETURN(NodeOut g, ctx->Op("Mul", {scale_kept, inv_t}));
  *dx = {g};
  return Status::OK();
}

}  // namespace

REGISTER_GRADIENT(MatMul, MatMulGrad);
REGISTER_GRADIENT(BatchMatMul, BatchMatMulGrad);
REGISTER_GRADIENT(MatrixInverse, MatrixInverseGrad);
REGISTER_GRADIENT(MatrixDeterminant, MatrixDeterminantGrad);

}  // namespace fb
