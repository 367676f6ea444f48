// CPU kernel of ArgMin (engine/ops/math_prod_argmin_ops.cc) for float, double, int32 and int64,
// with int32 or int64 output. NaN follows NumPy's argmin: the first NaN along the axis wins.
#include <cmath>
#include <functional>

#include "engine/framework/thread_pool.h"
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

// Index of the first best value along one axis, for a row-major [outer, r, inner] view with
// r >= 1: `Better(a, b)` says a beats b (std::less: ArgMin; std::greater would give ArgMax with
// the same NaN rule). The first NaN wins, as NumPy's argmin and argmax.
template <typename T, typename Tout, typename Better>
void ArgReduce3D(ThreadPool* pool, const T* in, Tout* out, int64_t outer, int64_t r,
                 int64_t inner) {
  const Better better;
  pool->ParallelFor(outer * inner, r, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T* p = in + (i / inner) * r * inner + i % inner;
      int64_t best = 0;
      if (!IsNan(p[0])) {
        for (int64_t k = 1; k < r; ++k) {
          const T v = p[k * inner];
          if (IsNan(v)) {
            best = k;
            break;
          }
          if (better(v, p[best * inner])) best = k;
        }
      }
      out[i] = static_cast<Tout>(best);
    }
  });
}

// ArgMin (Better = std::less<T>); written for any comparison so that ArgMax can share it.
template <typename T, typename Tout, typename Better>
class ArgReduceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& dim = ctx->input(1);
    OP_REQUIRES(ctx, x.dims() >= 1, InvalidArgument("input must be at least 1-D, got a scalar"));
    OP_REQUIRES(
        ctx, dim.dims() == 0,
        InvalidArgument("dimension must be a scalar, got shape ", dim.shape().DebugString()));
    auto mask = ReductionMask(dim, x.dims());
    OP_REQUIRES_OK(ctx, mask.status());
    const int axis = static_cast<int>(std::find(mask->begin(), mask->end(), true) - mask->begin());
    OP_REQUIRES(
        ctx, x.dim_size(axis) > 0,
        InvalidArgument("reduction axis ", axis, " is empty in shape ", x.shape().DebugString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, ReducedShape(x.shape(), *mask, false), &out));
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= x.dim_size(d);
    for (int d = axis + 1; d < x.dims(); ++d) inner *= x.dim_size(d);
    ArgReduce3D<T, Tout, Better>(ctx->intra_op_pool(), x.data<T>(), out->data<Tout>(), outer,
                                 x.dim_size(axis), inner);
  }
};

#define FB_REGISTER_ARGMIN(T)                                  \
  REGISTER_KERNEL(KernelDefBuilder("ArgMin")                   \
                      .Device(DEVICE_CPU)                      \
                      .TypeConstraint<T>("T")                  \
                      .TypeConstraint<int64_t>("output_type"), \
                  ArgReduceOp<T, int64_t, std::less<T>>);      \
  REGISTER_KERNEL(KernelDefBuilder("ArgMin")                   \
                      .Device(DEVICE_CPU)                      \
                      .TypeConstraint<T>("T")                  \
                      .TypeConstraint<int32_t>("output_type"), \
                  ArgReduceOp<T, int32_t, std::less<T>>)

FB_REGISTER_ARGMIN(float);
FB_REGISTER_ARGMIN(double);
FB_REGISTER_ARGMIN(int32_t);
FB_REGISTER_ARGMIN(int64_t);

#undef FB_REGISTER_ARGMIN

}  // namespace
}  // namespace fb
