// CPU kernels of StridedSlice and StridedSliceGrad (engine/ops/array_strided_slice_ops.cc) for
// every dtype. The spec is resolved per input dimension (strided_slice_util.h); the kernels walk
// the elements it takes in row-major order, copying runs when the last stride is 1. A slice that
// takes everything in order returns the input reshaped, without a copy.
#include <algorithm>

#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "engine/ops/strided_slice_util.h"

namespace fb {
namespace {

// Calls fn(big_offset, small_offset, run) for each run of `run` elements the slice takes from a
// dense tensor of dims `dims` (big), in the slice's row-major order (small). Requires a
// non-empty slice of rank >= 1.
template <typename Fn>
void ForEachRun(const std::vector<int64_t>& dims, const StridedSliceDense& d, Fn&& fn) {
  const int r = static_cast<int>(dims.size());
  const std::vector<int64_t>& sizes = d.processing_shape.dim_sizes();
  std::vector<int64_t> stride(r, 1);
  for (int i = r - 2; i >= 0; --i) stride[i] = stride[i + 1] * dims[i + 1];
  const bool contiguous = d.strides[r - 1] == 1;
  const int64_t run = contiguous ? sizes[r - 1] : 1;
  std::vector<int64_t> idx(r, 0);
  for (int64_t small = 0;; small += run) {
    int64_t big = 0;
    for (int i = 0; i < r; ++i) big += (d.begin[i] + idx[i] * d.strides[i]) * stride[i];
    fn(big, small, run);
    int i = contiguous ? r - 2 : r - 1;
    while (i >= 0 && ++idx[i] == sizes[i]) idx[i--] = 0;
    if (i < 0) return;
  }
}

StatusOr<StridedSliceDense> Resolve(OpKernelContext* ctx, const TensorShape& shape, int first) {
  StridedSliceMasks m;
  const AttrMap& attrs = ctx->op_kernel()->def().attrs;
  RETURN_IF_ERROR(GetNodeAttr(attrs, "begin_mask", &m.begin));
  RETURN_IF_ERROR(GetNodeAttr(attrs, "end_mask", &m.end));
  RETURN_IF_ERROR(GetNodeAttr(attrs, "ellipsis_mask", &m.ellipsis));
  RETURN_IF_ERROR(GetNodeAttr(attrs, "new_axis_mask", &m.new_axis));
  RETURN_IF_ERROR(GetNodeAttr(attrs, "shrink_axis_mask", &m.shrink_axis));
  const char* names[] = {"begin", "end", "strides"};
  for (int i = 0; i < 3; ++i)
    if (ctx->input(first + i).dims() != 1)
      return InvalidArgument(names[i], " must be 1-D, got shape ",
                             ctx->input(first + i).shape().DebugString());
  return ResolveStridedSlice(shape, IntTensorValues(ctx->input(first)),
                             IntTensorValues(ctx->input(first + 1)),
                             IntTensorValues(ctx->input(first + 2)), m);
}

class StridedSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    auto d = Resolve(ctx, input.shape(), 1);
    OP_REQUIRES_OK(ctx, d.status());
    if (d->is_identity) {
      ctx->set_output(0, input.Reshaped(d->final_shape));
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, d->final_shape, &out));
    if (out->NumElements() == 0) return;
    VisitDataType(input.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* in = input.data<T>();
      T* o = out->data<T>();
      ForEachRun(input.shape().dim_sizes(), *d, [&](int64_t big, int64_t small, int64_t run) {
        std::copy(in + big, in + big + run, o + small);
      });
    });
  }
};

class StridedSliceGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, shape_t.dims() == 1,
                InvalidArgument("shape must be 1-D, got shape ", shape_t.shape().DebugString()));
    std::vector<int64_t> dims = IntTensorValues(shape_t);
    OP_REQUIRES_OK(ctx, ValidateShape(dims, "shape " + IntListString(dims)));
    auto d = Resolve(ctx, TensorShape(dims), 1);
    OP_REQUIRES_OK(ctx, d.status());
    OP_REQUIRES(ctx, dy.shape() == d->final_shape,
                InvalidArgument("dy has shape ", dy.shape().DebugString(),
                                ", expected the slice's shape ", d->final_shape.DebugString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    VisitDataType(dy.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* o = out->data<T>();
      std::fill(o, o + out->NumElements(), T{});
      if (dy.NumElements() == 0) return;
      const T* g = dy.data<T>();
      if (dims.empty()) {
        *o = *g;
        return;
      }
      ForEachRun(dims, *d, [&](int64_t big, int64_t small, int64_t run) {
        std::copy(g + small, g + small + run, o + big);
      });
    });
  }
};

REGISTER_KERNEL(KernelDefBuilder("StridedSlice").Device(DEVICE_CPU), StridedSliceOp);
REGISTER_KERNEL(KernelDefBuilder("StridedSliceGrad").Device(DEVICE_CPU), StridedSliceGradOp);

}  // namespace
}  // namespace fb
