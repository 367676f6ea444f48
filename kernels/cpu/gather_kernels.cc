// CPU kernels of Gather, GatherV2 and OneHot (every value dtype; int32/int64 indices, and uint8
// for OneHot) and UnsortedSegmentSum (numeric dtypes); see engine/ops/array_gather_ops.cc.
// Gather views params as [outer, N, inner] and copies rows of `inner` elements; every index is
// checked before any copy so that a bad index fails the step with its position in the message.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_copy.h"
#include "kernels/cpu/gather_io.h"

namespace fb {

namespace {

using gather_io::CheckIndices;

template <typename Index>
class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* c)
      : OpKernel(c), has_axis_(gather_io::ParseGatherAttrs(c)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    int64_t axis = 0;
    if (has_axis_) {
      OP_REQUIRES(ctx, ctx->input(2).NumElements() == 1,
                  InvalidArgument("axis must be a scalar, got shape ",
                                  ctx->input(2).shape().DebugString()));
      axis = IntTensorValues(ctx->input(2))[0];
    }
    auto shape = GatherShape(params.shape(), indices.shape(), axis);
    OP_REQUIRES_OK(ctx, shape.status());
    const int a = static_cast<int>(axis < 0 ? axis + params.dims() : axis);
    const std::vector<int64_t>& dims = params.shape().dim_sizes();
    const int64_t outer = DimProduct(dims, 0, a), limit = dims[a];
    const int64_t inner = DimProduct(dims, a + 1, params.dims());
    OP_REQUIRES_OK(ctx, CheckIndices<Index>(indices, limit, "indices", false));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const int64_t n = indices.NumElements();
    if (out->NumElements() == 0) return;
    const Index* idx = indices.data<Index>();
    VisitDataType(params.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* src = params.data<T>();
      T* dst = out->data<T>();
      ctx->intra_op_pool()->ParallelFor(outer * n, inner + 5, [&](int64_t begin, int64_t end) {
        for (int64_t row = begin; row < end; ++row) {
          const int64_t o = row / n, j = row % n;
          const T* from = src + (o * limit + idx[j]) * inner;
          std::copy(from, from + inner, dst + row * inner);
        }
      });
    });
  }

 private:
  bool has_axis_;
};

template <typename Index>
class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("axis", &axis_)); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    for (int i = 1; i < 4; ++i)
      OP_REQUIRES(ctx, ctx->input(i).dims() == 0,
                  InvalidArgument(i == 1 ? "depth" : i == 2 ? "on_value" : "off_value",
                                  " must be a scalar, got shape ",
                                  ctx->input(i).shape().DebugString()));
    const int64_t depth = ctx->input(1).scalar<int32_t>();
    auto shape = OneHotShape(indices.shape(), depth, axis_);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const int a = static_cast<int>(axis_ == -1 ? indices.dims() : axis_);
    const int64_t prefix = DimProduct(indices.shape().dim_sizes(), 0, a);
    const int64_t suffix = DimProduct(indices.shape().dim_sizes(), a, indices.dims());
    const Index* idx = indices.data<Index>();
    VisitDataType(out->dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T on = ctx->input(2).scalar<T>(), off = ctx->input(3).scalar<T>();
      T* dst = out->data<T>();
      for (int64_t p = 0; p < prefix; ++p)
        for (int64_t d = 0; d < depth; ++d)
          for (int64_t s = 0; s < suffix; ++s)
            *dst++ = static_cast<int64_t>(idx[p * suffix + s]) == d ? on : off;
    });
  }

 private:
  int64_t axis_ = -1;
};

template <typename T, typename Index>
class UnsortedSegmentSumOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    OP_REQUIRES(ctx, ctx->input(2).NumElements() == 1,
                InvalidArgument("num_segments must be a scalar, got shape ",
                                ctx->input(2).shape().DebugString()));
    const int64_t num = IntTensorValues(ctx->input(2))[0];
    auto shape = SegmentSumShape(data.shape(), ids.shape(), num);
    OP_REQUIRES_OK(ctx, shape.status());
    OP_REQUIRES_OK(ctx, CheckIndices<Index>(ids, num, "segment_ids", true));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    T* dst = out->data<T>();
    std::fill(dst, dst + out->NumElements(), T(0));
    const int64_t inner = DimProduct(data.shape().dim_sizes(), ids.dims(), data.dims());
    const T* src = data.data<T>();
    const Index* id = ids.data<Index>();
    for (int64_t j = 0; j < ids.NumElements(); ++j) {
      if (id[j] < 0) continue;
      T* row = dst + static_cast<int64_t>(id[j]) * inner;
      for (int64_t k = 0; k < inner; ++k) row[k] += src[j * inner + k];
    }
  }
};

#define FB_REGISTER_INDEX_KERNELS(Index)                                                    \
  REGISTER_KERNEL(KernelDefBuilder("Gather").Device(DEVICE_CPU).TypeConstraint<Index>("Tindices"), \
                  GatherOp<Index>);                                                         \
  REGISTER_KERNEL(                                                                          \
      KernelDefBuilder("GatherV2").Device(DEVICE_CPU).TypeConstraint<Index>("Tindices"),    \
      GatherOp<Index>);                                                                     \
  REGISTER_KERNEL(KernelDefBuilder("OneHot").Device(DEVICE_CPU).TypeConstraint<Index>("TI"), \
                  OneHotOp<Index>);
FB_REGISTER_INDEX_KERNELS(int32_t)
FB_REGISTER_INDEX_KERNELS(int64_t)
#undef FB_REGISTER_INDEX_KERNELS
REGISTER_KERNEL(KernelDefBuilder("OneHot").Device(DEVICE_CPU).TypeConstraint<uint8_t>("TI"),
                OneHotOp<uint8_t>);

#define FB_REGISTER_SEGMENT_SUM(T)                                                          \
  REGISTER_KERNEL(KernelDefBuilder("UnsortedSegmentSum")                                    \
                      .Device(DEVICE_CPU)                                                   \
                      .TypeConstraint<T>("T")                                               \
                      .TypeConstraint<int32_t>("Tindices"),                                 \
                  UnsortedSegmentSumOp<T, int32_t>);                                        \
  REGISTER_KERNEL(KernelDefBuilder("UnsortedSegmentSum")                                    \
                      .Device(DEVICE_CPU)                                                   \
                      .TypeConstraint<T>("T")                                               \
                      .TypeConstraint<int64_t>("Tindices"),                                 \
                  UnsortedSegmentSumOp<T, int64_t>);
FB_REGISTER_SEGMENT_SUM(float)
FB_REGISTER_SEGMENT_SUM(double)
FB_REGISTER_SEGMENT_SUM(half)
FB_REGISTER_SEGMENT_SUM(bfloat16)
FB_REGISTER_SEGMENT_SUM(int32_t)
FB_REGISTER_SEGMENT_SUM(int64_t)
FB_REGISTER_SEGMENT_SUM(int8_t)
FB_REGISTER_SEGMENT_SUM(int16_t)
FB_REGISTER_SEGMENT_SUM(uint8_t)
FB_REGISTER_SEGMENT_SUM(complex64)
#undef FB_REGISTER_SEGMENT_SUM

}  // namespace

}  // namespace fb
