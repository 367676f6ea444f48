// Matrix ops of whitepaper Table 1 ("Matrix operations: MatMul, MatrixInverse,
// MatrixDeterminant, ..."), with TensorFlow's names and attrs. Matrices are row-major; batched
// ops take [..., rows, cols]. Kernels: kernels/cpu/matmul.cc (OpenBLAS gemm, whitepaper 5.4) and
// kernels/cpu/linalg.cc (Eigen LU); gradients: engine/autodiff/math_grad_matrix.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {
namespace {

// Rows and columns of input i's last two dims after an optional transpose.
void MatrixDims(const TensorShape& s, bool transpose, int64_t* rows, int64_t* cols) {
  int64_t r = s.dim_size(s.rank() - 2), c = s.dim_size(s.rank() - 1);
  *rows = transpose ? c : r;
  *cols = transpose ? r : c;
}

// [..., M, K] x [..., K, N] -> [..., M, N] with transposes given by the two attrs; batch dims
// (all but the last two) must agree. Unbatched inputs must be exactly 2-D.
Status MatMulShapeImpl(InferenceContext* c, const char* ta_attr, const char* tb_attr,
                       bool batched) {
  bool ta = false, tb = false;
  RETURN_IF_ERROR(c->GetAttr(ta_attr, &ta));
  RETURN_IF_ERROR(c->GetAttr(tb_attr, &tb));
  for (int i = 0; i < 2; ++i) RETURN_IF_ERROR(batched ? c->WithRankAtLeast(i, 2) : c->WithRank(i, 2));
  const PartialShape &a = c->input(0), &b = c->input(1);
  if (!a || !b) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  if (a->rank() != b->rank())
    return c->Error("inputs must have equal rank, got ", a->DebugString(), " and ",
                    b->DebugString());
  TensorShape out;
  for (int d = 0; d < a->rank() - 2; ++d) {
    int64_t merged;
    RETURN_IF_ERROR(c->MergeDim(a->dim_size(d), b->dim_size(d), &merged,
                                "batch dimension " + std::to_string(d)));
    out.AddDim(merged);
  }
  int64_t m, ka, kb, n;
  MatrixDims(*a, ta, &m, &ka);
  MatrixDims(*b, tb, &kb, &n);
  if (ka >= 0 && kb >= 0 && ka != kb)
    return c->Error("matrix size-incompatible: In[0]: ", a->DebugString(), ", In[1]: ",
                    b->DebugString(), (ta ? " (In[0] transposed)" : ""),
                    (tb ? " (In[1] transposed)" : ""));
  out.AddDim(m);
  out.AddDim(n);
  c->set_output(0, out);
  return Status::OK();
}

Status SquareMatrices(InferenceContext* c, bool drop_matrix_dims) {
  RETURN_IF_ERROR(c->WithRankAtLeast(0, 2));
  const PartialShape& in = c->input(0);
  if (!in) {
    c->set_output(0, std::nullopt);
    return Status::OK();
  }
  int64_t rows = in->dim_size(in->rank() - 2), cols = in->dim_size(in->rank() - 1);
  if (rows >= 0 && cols >= 0 && rows != cols)
    return c->Error("input must be square matrices [..., M, M], got shape ", in->DebugString());
  TensorShape out = *in;
  if (drop_matrix_dims) {
    out.RemoveDim(out.rank() - 1);
    out.RemoveDim(out.rank() - 1);
  }
  c->set_output(0, out);
  return Status::OK();
}

}  // namespace

REGISTER_OP("MatMul")
    .Input("a: T")
    .Input("b: T")
    .Output("product: T")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn([](InferenceContext* c) {
      return MatMulShapeImpl(c, "transpose_a", "transpose_b", false);
    })
    .Doc("Matrix product a x b. a: [M,K] ([K,M] when transpose_a), b: [K,N] ([N,K] when "
         "transpose_b), product: [M,N]. OpenBLAS sgemm/dgemm on CPU (whitepaper 5.4).");

REGISTER_OP("BatchMatMul")
    .Input("x: T")
    .Input("y: T")
    .Output("output: T")
    .Attr("adj_x: bool = false")
    .Attr("adj_y: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn([](InferenceContext* c) { return MatMulShapeImpl(c, "adj_x", "adj_y", true); })
    .Doc("Batched matrix product: x: [..., M, K], y: [..., K, N] (each matrix transposed first "
         "when adj_x / adj_y), output: [..., M, N]. Inputs have rank >= 2 and equal batch "
         "dimensions (no broadcasting of batch dimensions, as TensorFlow's BatchMatMul v1).");

REGISTER_OP("MatrixInverse")
    .Input("input: T")
    .Output("output: T")
    .Attr("adjoint: bool = false")
    .Attr("T: {float, double}")
    .SetShapeFn([](InferenceContext* c) { return SquareMatrices(c, false); })
    .Doc("Inverse of each matrix of input [..., M, M] (of its transpose when adjoint), by LU "
         "decomposition with partial pivoting. InvalidArgument for a singular matrix.");

REGISTER_OP("MatrixDeterminant")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {float, double}")
    .SetShapeFn([](InferenceContext* c) { return SquareMatrices(c, true); })
    .Doc("Determinant of each matrix of input [..., M, M]; output [...]. By LU decomposition with "
         "partial pivoting; a singular matrix gives 0.");

}  // namespace fb
