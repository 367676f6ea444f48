// CPU kernels of Sum, Mean, Max, Min and ArgMax (engine/ops/math_reduction_ops.cc).
#include "engine/ops/math_reduction_util.h"
#include "kernels/cpu/reduction.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace reduction {

Collapsed Collapse(const TensorShape& shape, const std::vector<bool>& mask) {
  Collapsed c;
  for (int i = 0; i < shape.rank(); ++i) {
    if (shape.dim_size(i) == 1) continue;
    if (!c.dims.empty() && c.reduced.back() == mask[i]) {
      c.dims.back() *= shape.dim_size(i);
    } else {
      c.dims.push_back(shape.dim_size(i));
      c.reduced.push_back(mask[i]);
    }
  }
  return c;
}

StatusOr<ArgMaxPlan> PrepareArgMax(OpKernelContext* ctx, const Tensor& x,
                                   const Tensor& dimension) {
  if (x.dims() < 1) return InvalidArgument("input must be at least 1-D, got a scalar");
  if (dimension.dims() != 0)
    return InvalidArgument("dimension must be a scalar, got shape ",
                           dimension.shape().DebugString());
  ASSIGN_OR_RETURN(std::vector<bool> mask, ReductionMask(dimension, x.dims()));
  const int axis = static_cast<int>(std::find(mask.begin(), mask.end(), true) - mask.begin());
  if (x.dim_size(axis) <= 0)
    return InvalidArgument("reduction axis ", axis, " is empty in shape ", x.shape().DebugString());
  ArgMaxPlan p;
  RETURN_IF_ERROR(ctx->allocate_output(0, ReducedShape(x.shape(), mask, false), &p.out));
  for (int d = 0; d < axis; ++d) p.outer *= x.dim_size(d);
  for (int d = axis + 1; d < x.dims(); ++d) p.inner *= x.dim_size(d);
  p.r = x.dim_size(axis);
  return p;
}

}  // namespace reduction

namespace {

using reduction::MaxReducer;
using reduction::MinReducer;
using reduction::SumReducer;

using reduction::ReductionOp;

// Index of the first largest value along one axis, for a row-major [outer, r, inner] view; the
// index of the first NaN when the slice has one (NumPy's argmax; NaN compares false otherwise).
template <typename T, typename Tout>
void ArgMax3D(ThreadPool* pool, const T* in, Tout* out, int64_t outer, int64_t r, int64_t inner) {
  pool->ParallelFor(outer * inner, r, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T* p = in + (i / inner) * r * inner + i % inner;
      int64_t best = 0;
      for (int64_t k = 1; k < r; ++k)
        if (p[k * inner] > p[best * inner] ||
            (p[k * inner] != p[k * inner] && p[best * inner] == p[best * inner]))
          best = k;
      out[i] = static_cast<Tout>(best);
    }
  });
}

template <typename T, typename Tout>
class ArgMaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    auto p = reduction::PrepareArgMax(ctx, x, ctx->input(1));
    OP_REQUIRES_OK(ctx, p.status());
    ArgMax3D(ctx->intra_op_pool(), x.data<T>(), p->out->data<Tout>(), p->outer, p->r, p->inner);
  }
};

#define FB_REGISTER_REDUCTIONS(T)                                                       \
  FB_REGISTER_CPU_T("Sum", T, ReductionOp<T, SumReducer>);                              \
  FB_REGISTER_CPU_T("Mean", T, ReductionOp<T, SumReducer, true>);                       \
  FB_REGISTER_CPU_T("Max", T, ReductionOp<T, MaxReducer>);                              \
  FB_REGISTER_CPU_T("Min", T, ReductionOp<T, MinReducer>);                              \
  REGISTER_KERNEL(KernelDefBuilder("ArgMax").Device(DEVICE_CPU).TypeConstraint<T>("T")  \
                      .TypeConstraint<int64_t>("output_type"), ArgMaxOp<T, int64_t>);   \
  REGISTER_KERNEL(KernelDefBuilder("ArgMax").Device(DEVICE_CPU).TypeConstraint<T>("T")  \
                      .TypeConstraint<int32_t>("output_type"), ArgMaxOp<T, int32_t>)

FB_REGISTER_REDUCTIONS(float);
FB_REGISTER_REDUCTIONS(double);
FB_REGISTER_REDUCTIONS(int32_t);
FB_REGISTER_REDUCTIONS(int64_t);

#undef FB_REGISTER_REDUCTIONS

}  // namespace
}  // namespace fb
