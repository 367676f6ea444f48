// CPU kernels of MatrixInverse and MatrixDeterminant (engine/ops/math_matrix_ops.cc): Eigen's LU
// decomposition with partial pivoting, one matrix of the batch [..., M, M] at a time.
#include <Eigen/LU>

#include "engine/framework/op_kernel.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The number of M x M matrices in `x`, and M. InvalidArgument unless x is [..., M, M].
Status SquareBatch(const Tensor& x, int64_t* batch, int64_t* m) {
  if (x.dims() < 2 || x.dim_size(x.dims() - 1) != x.dim_size(x.dims() - 2))
    return InvalidArgument("input must be square matrices [..., M, M], got shape ",
                           x.shape().DebugString());
  *m = x.dim_size(x.dims() - 1);
  *batch = *m == 0 ? 0 : x.NumElements() / (*m * *m);
  return Status::OK();
}

template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    int64_t batch, m;
    OP_REQUIRES_OK(ctx, SquareBatch(x, &batch, &m));
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    for (int64_t i = 0; i < batch; ++i) {
      Eigen::Map<const Matrix<T>> in(x.data<T>() + i * m * m, m, m);
      Eigen::PartialPivLU<Matrix<T>> lu(m);
      if (adjoint_) lu.compute(in.transpose());
      else lu.compute(in);
      // As TensorFlow: a zero pivot means the matrix is singular.
      OP_REQUIRES(ctx, lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0),
                  InvalidArgument("matrix ", i, " of input ", x.shape().DebugString(),
                                  " is not invertible (singular)"));
      Eigen::Map<Matrix<T>>(y->data<T>() + i * m * m, m, m) = lu.inverse();
    }
  }

 private:
  bool adjoint_ = false;
};

template <typename T>
class MatrixDeterminantOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    int64_t batch, m;
    OP_REQUIRES_OK(ctx, SquareBatch(x, &batch, &m));
    TensorShape out_shape = x.shape();
    out_shape.RemoveDim(x.dims() - 1);
    out_shape.RemoveDim(x.dims() - 2);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &y));
    if (m == 0) {  // the determinant of a 0 x 0 matrix is 1
      std::fill(y->data<T>(), y->data<T>() + y->NumElements(), T(1));
      return;
    }
    for (int64_t i = 0; i < batch; ++i) {
      Eigen::Map<const Matrix<T>> in(x.data<T>() + i * m * m, m, m);
      y->data<T>()[i] = Eigen::PartialPivLU<Matrix<T>>(in).determinant();
    }
  }
};

FB_REGISTER_CPU_T("MatrixInverse", float, MatrixInverseOp<float>);
FB_REGISTER_CPU_T("MatrixInverse", double, MatrixInverseOp<double>);
FB_REGISTER_CPU_T("MatrixDeterminant", float, MatrixDeterminantOp<float>);
FB_REGISTER_CPU_T("MatrixDeterminant", double, MatrixDeterminantOp<double>);

}  // namespace
}  // namespace fb
