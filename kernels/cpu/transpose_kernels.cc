// CPU kernels of Transpose (every dtype) and InvertPermutation (int32, int64); see
// engine/ops/array_transpose_ops.cc. Transpose walks the output in row-major order, reading the
// input with the permuted strides; rows of the output are spread over the intra-op pool.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_io.h"

namespace fb {

namespace {

template <typename T>
void TransposeRows(const T* in, const std::vector<int64_t>& in_dims,
                   const std::vector<int64_t>& perm, T* out, ThreadPool* pool) {
  const int r = static_cast<int>(in_dims.size());
  std::vector<int64_t> in_stride(r, 1), src_stride(r), out_dims(r);
  for (int i = r - 2; i >= 0; --i) in_stride[i] = in_stride[i + 1] * in_dims[i + 1];
  for (int i = 0; i < r; ++i) {
    out_dims[i] = in_dims[perm[i]];
    src_stride[i] = in_stride[perm[i]];
  }
  const int64_t row_len = out_dims[r - 1], last_stride = src_stride[r - 1];
  int64_t rows = 1;
  for (int i = 0; i < r - 1; ++i) rows *= out_dims[i];
  pool->ParallelFor(rows, 2 * row_len + 10, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      int64_t src = 0;
      for (int64_t i = r - 2, rest = row; i >= 0; --i) {
        src += (rest % out_dims[i]) * src_stride[i];
        rest /= out_dims[i];
      }
      T* dst = out + row * row_len;
      for (int64_t j = 0; j < row_len; ++j) dst[j] = in[src + j * last_stride];
    }
  });
}

// Transpose: the input itself for the identity permutation, else the output's rows in parallel.
void RunTranspose(OpKernelContext* ctx, const array_io::TransposeArgs& args) {
  const Tensor& x = ctx->input(0);
  if (args.identity) {
    ctx->forward_input(0, 0);
    return;
  }
  const std::vector<int64_t>& perm = args.perm;
  Tensor* y;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, args.shape, &y));
  if (y->NumElements() == 0) return;
  VisitDataType(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    TransposeRows<T>(x.data<T>(), x.shape().dim_sizes(), perm, y->data<T>(), ctx->intra_op_pool());
  });
}

template <typename T>
class InvertPermutationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.dims() == 1,
                InvalidArgument("x must be 1-D, got shape ", x.shape().DebugString()));
    const int64_t n = x.NumElements();
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    T* out = y->data<T>();
    std::fill(out, out + n, T{-1});
    for (int64_t i = 0; i < n; ++i) {
      const T d = x.data<T>()[i];
      OP_REQUIRES(ctx, d >= 0 && d < n,
                  InvalidArgument("x[", i, "] = ", d, " is not in [0, ", n, ")"));
      OP_REQUIRES(ctx, out[d] == -1, InvalidArgument(d, " appears twice in x: not a permutation"));
      out[d] = static_cast<T>(i);
    }
  }
};

using TransposeOp = array_io::ArgsOp<array_io::TransposeArgs, array_io::ReadTranspose,
                                     array_io::ReadHostInts, RunTranspose>;

REGISTER_KERNEL(KernelDefBuilder("Transpose").Device(DEVICE_CPU), TransposeOp);
REGISTER_KERNEL(KernelDefBuilder("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"),
                InvertPermutationOp<int32_t>);
REGISTER_KERNEL(KernelDefBuilder("InvertPermutation").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"),
                InvertPermutationOp<int64_t>);

}  // namespace

}  // namespace fb
