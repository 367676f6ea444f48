// GPU kernels of the array ops that move data: Slice, Pad, Transpose, Tile, ConcatV2, Concat,
// Pack, Split and Unpack (float and double; their shape, axis and index arguments are HostMemory,
// read on the host). Shapes are checked with the rules the CPU kernels use
// (engine/ops/array_shape_util.h), so errors read the same; each copy is one strided-copy launch
// per input or output (array_kernels.cu) on the compute stream. Whole-tensor results and pieces
// along dimension 0 share the input's buffer, as on the CPU.
#include "engine/ops/array_shape_util.h"
#include "engine/ops/array_tile_util.h"
#include "kernels/cuda/array_launch.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

int64_t Product(const std::vector<int64_t>& dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

// A copy over index space `dims`, reading `src` with `src_strides` from `src_base` and writing
// `dst` with `dst_strides` from `dst_base` (all in elements; src_mod = dims).
StatusOr<StridedCopy> MakeCopy(const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& src_strides, int64_t src_base,
                               const std::vector<int64_t>& dst_strides, int64_t dst_base) {
  if (dims.size() > static_cast<size_t>(kMaxCopyDims))
    return InvalidArgument("tensors of rank ", dims.size(),
                           " are not supported on the GPU (at most ", kMaxCopyDims, ")");
  StridedCopy c;
  c.rank = static_cast<int>(dims.size());
  for (int d = 0; d < c.rank; ++d) {
    c.dims[d] = dims[d];
    c.src_mod[d] = dims[d];
    c.src_strides[d] = src_strides[d];
    c.dst_strides[d] = dst_strides[d];
  }
  c.src_base = src_base;
  c.dst_base = dst_base;
  return c;
}

void Launch(OpKernelContext* ctx, const Tensor& src, Tensor* dst, const StridedCopy& c) {
  int64_t n = 1;
  for (int d = 0; d < c.rank; ++d) n *= c.dims[d];
  LaunchStridedCopy(static_cast<int>(DataTypeSize(src.dtype())), src.raw_data(), dst->raw_data(),
                    n, c, GpuOf(ctx)->compute_stream());
}

// Host values of int input `i` (HostMemory, so already on the host).
StatusOr<std::vector<int64_t>> HostInts(OpKernelContext* ctx, int i) {
  ASSIGN_OR_RETURN(Tensor t, HostInput(ctx, i));
  return IntTensorValues(t);
}

class GpuSliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, ctx->input(1).dims() == 1 && ctx->input(2).dims() == 1,
                InvalidArgument("begin and size must be 1-D, got shapes ",
                                ctx->input(1).shape().DebugString(), " and ",
                                ctx->input(2).shape().DebugString()));
    auto begin = HostInts(ctx, 1);
    OP_REQUIRES_OK(ctx, begin.status());
    auto size = HostInts(ctx, 2);
    OP_REQUIRES_OK(ctx, size.status());
    auto shape = SliceShape(input.shape(), *begin, *size);
    OP_REQUIRES_OK(ctx, shape.status());
    if (*shape == input.shape()) {
      ctx->forward_input(0, 0);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    const std::vector<int64_t> in_strides = RowMajorStrides(input.shape().dim_sizes());
    int64_t base = 0;
    for (size_t d = 0; d < begin->size(); ++d) base += (*begin)[d] * in_strides[d];
    auto c = MakeCopy(shape->dim_sizes(), in_strides, base, RowMajorStrides(shape->dim_sizes()), 0);
    OP_REQUIRES_OK(ctx, c.status());
    Launch(ctx, input, out, *c);
  }
};

class GpuPadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& paddings = ctx->input(1);
    OP_REQUIRES(ctx, paddings.dims() == 2 && paddings.dim_size(1) == 2,
                InvalidArgument("paddings must be [rank, 2], got shape ",
                                paddings.shape().DebugString()));
    auto pads = HostInts(ctx, 1);
    OP_REQUIRES_OK(ctx, pads.status());
    auto shape = PadShape(input.shape(), *pads);
    OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, CudaStatus(cudaMemsetAsync(out->raw_data(), 0, out->ByteSize(),
                                                   GpuOf(ctx)->compute_stream()),
                                   "cudaMemsetAsync"));
    const std::vector<int64_t> out_strides = RowMajorStrides(shape->dim_sizes());
    int64_t base = 0;
    for (int d = 0; d < input.dims(); ++d) base += (*pads)[2 * d] * out_strides[d];
    auto c = MakeCopy(input.shape().dim_sizes(), RowMajorStrides(input.shape().dim_sizes()), 0,
                      out_strides, base);
    OP_REQUIRES_OK(ctx, c.status());
    Launch(ctx, input, out, *c);
  }
};

class GpuTransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, ctx->input(1).dims() == 1,
                InvalidArgument("perm must be 1-D, got shape ",
                                ctx->input(1).shape().DebugString()));
    auto perm = HostInts(ctx, 1);
    OP_REQUIRES_OK(ctx, perm.status());
    auto shape = TransposeShape(x.shape(), *perm);
    OP_REQUIRES_OK(ctx, shape.status());
    bool identity = true;
    for (size_t i = 0; i < perm->size(); ++i)
      identity = identity && (*perm)[i] == static_cast<int64_t>(i);
    if (identity) {
      ctx->forward_input(0, 0);
      return;
    }
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &y));
    const std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dim_sizes());
    std::vector<int64_t> src_strides;
    for (int64_t p : *perm) src_strides.push_back(in_strides[p]);
    auto c = MakeCopy(shape->dim_sizes(), src_strides, 0, RowMajorStrides(shape->dim_sizes()), 0);
    OP_REQUIRES_OK(ctx, c.status());
    Launch(ctx, x, y, *c);
  }
};

class GpuTileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& multiples = ctx->input(1);
    OP_REQUIRES(
        ctx, multiples.dims() == 1,
        InvalidArgument("multiples must be 1-D, got shape ", multiples.shape().DebugString()));
    auto m = HostInts(ctx, 1);
    OP_REQUIRES_OK(ctx, m.status());
    auto shape = TileShape(input.shape(), *m);
    OP_REQUIRES_OK(ctx, shape.status());
    if (*shape == input.shape()) {
      ctx->forward_input(0, 0);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;  // an empty input dim: no modulo by zero
    auto c = MakeCopy(shape->dim_sizes(), RowMajorStrides(input.shape().dim_sizes()), 0,
                      RowMajorStrides(shape->dim_sizes()), 0);
    OP_REQUIRES_OK(ctx, c.status());
    for (int d = 0; d < input.dims(); ++d) c->src_mod[d] = input.dim_size(d);
    Launch(ctx, input, out, *c);
  }
};

// Copies `parts` side by side into (join) or out of (split) `whole`, all viewed as
// [outer, width]: part k occupies columns [offset_k, offset_k + width_k) of whole's
// [outer, sum(width)] rows.
Status CopyColumns(OpKernelContext* ctx, Tensor* whole, const std::vector<Tensor*>& parts,
                   int64_t outer, bool join) {
  if (whole->NumElements() == 0) return Status::OK();
  const int64_t total = whole->NumElements() / outer;
  int64_t offset = 0;
  for (Tensor* p : parts) {
    const int64_t width = p->NumElements() / outer;
    const std::vector<int64_t> part_strides = {width, 1}, whole_strides = {total, 1};
    ASSIGN_OR_RETURN(StridedCopy c, join ? MakeCopy({outer, width}, part_strides, 0,
                                                    whole_strides, offset)
                                         : MakeCopy({outer, width}, whole_strides, offset,
                                                    part_strides, 0));
    if (join) Launch(ctx, *p, whole, c);
    else Launch(ctx, *whole, p, c);
    offset += width;
  }
  return Status::OK();
}

// Output 0 of `shape`: `values` joined along `axis` (canonical in the output).
void Join(OpKernelContext* ctx, std::vector<Tensor> values, int axis, const TensorShape& shape) {
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  std::vector<Tensor*> parts;
  for (Tensor& v : values) parts.push_back(&v);
  OP_REQUIRES_OK(ctx, CopyColumns(ctx, out, parts, Product(shape.dim_sizes(), 0, axis), true));
}

// ConcatV2 (axis last) and Concat (axis first).
class GpuConcatOp : public OpKernel {
 public:
  explicit GpuConcatOp(OpKernelConstruction* c)
      : OpKernel(c), axis_first_(c->def().op == "Concat") {}
  void Compute(OpKernelContext* ctx) override {
    const int n = num_inputs() - 1;
    const int axis_input = axis_first_ ? 0 : n;
    OP_REQUIRES(ctx, ctx->input(axis_input).NumElements() == 1,
                InvalidArgument("axis must be a scalar, got shape ",
                                ctx->input(axis_input).shape().DebugString()));
    auto axis = HostInts(ctx, axis_input);
    OP_REQUIRES_OK(ctx, axis.status());
    std::vector<Tensor> values;
    std::vector<TensorShape> shapes;
    for (int i = 0; i < n; ++i) {
      values.push_back(ctx->input(axis_first_ ? i + 1 : i));
      shapes.push_back(values.back().shape());
    }
    auto shape = ConcatShape(shapes, (*axis)[0]);
    OP_REQUIRES_OK(ctx, shape.status());
    const int64_t a = (*axis)[0];
    Join(ctx, std::move(values), static_cast<int>(a < 0 ? a + shape->rank() : a), *shape);
  }

 private:
  bool axis_first_;
};

class GpuPackOp : public OpKernel {
 public:
  explicit GpuPackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> values;
    std::vector<TensorShape> shapes;
    for (int i = 0; i < num_inputs(); ++i) {
      values.push_back(ctx->input(i));
      shapes.push_back(values.back().shape());
    }
    auto shape = PackShape(shapes, axis_);
    OP_REQUIRES_OK(ctx, shape.status());
    Join(ctx, std::move(values), static_cast<int>(axis_ < 0 ? axis_ + shape->rank() : axis_),
         *shape);
  }

 private:
  int64_t axis_ = 0;
};

// Outputs of `piece` cut out of `value` along `axis`: views for axis 0, else copies.
void Cut(OpKernelContext* ctx, const Tensor& value, int axis, const TensorShape& piece) {
  const int n = ctx->num_outputs();
  if (axis == 0) {
    const int64_t width = value.dims() == piece.rank() ? piece.dim_size(0) : 1;
    for (int i = 0; i < n; ++i)
      ctx->set_output(i, value.Slice(i * width, (i + 1) * width).Reshaped(piece));
    return;
  }
  std::vector<Tensor*> outs(n);
  for (int i = 0; i < n; ++i) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, piece, &outs[i]));
  Tensor whole = value;
  OP_REQUIRES_OK(ctx, CopyColumns(ctx, &whole, outs,
                                  Product(value.shape().dim_sizes(), 0, axis), false));
}

class GpuSplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, ctx->input(0).NumElements() == 1,
                InvalidArgument("split_dim must be a scalar, got shape ",
                                ctx->input(0).shape().DebugString()));
    auto axis = HostInts(ctx, 0);
    OP_REQUIRES_OK(ctx, axis.status());
    auto piece = SplitShape(value.shape(), (*axis)[0], num_outputs());
    OP_REQUIRES_OK(ctx, piece.status());
    const int64_t a = (*axis)[0];
    Cut(ctx, value, static_cast<int>(a < 0 ? a + value.dims() : a), *piece);
  }
};

class GpuUnpackOp : public OpKernel {
 public:
  explicit GpuUnpackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    auto piece = UnpackShape(value.shape(), num_outputs(), axis_);
    OP_REQUIRES_OK(ctx, piece.status());
    Cut(ctx, value, static_cast<int>(axis_ < 0 ? axis_ + value.dims() : axis_), *piece);
  }

 private:
  int64_t axis_ = 0;
};

#define FB_REGISTER_ARRAY(op, Kernel, ...)                                                   \
  REGISTER_KERNEL(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint<float>("T")        \
                      __VA_ARGS__, Kernel);                                                  \
  REGISTER_KERNEL(KernelDefBuilder(op).Device(DEVICE_GPU).TypeConstraint<double>("T")       \
                      __VA_ARGS__, Kernel)
FB_REGISTER_ARRAY("Slice", GpuSliceOp, .HostMemory("begin").HostMemory("size"));
FB_REGISTER_ARRAY("Pad", GpuPadOp, .HostMemory("paddings"));
FB_REGISTER_ARRAY("Transpose", GpuTransposeOp, .HostMemory("perm"));
FB_REGISTER_ARRAY("Tile", GpuTileOp, .HostMemory("multiples"));
FB_REGISTER_ARRAY("ConcatV2", GpuConcatOp, .HostMemory("axis"));
FB_REGISTER_ARRAY("Concat", GpuConcatOp, .HostMemory("concat_dim"));
FB_REGISTER_ARRAY("Pack", GpuPackOp);
FB_REGISTER_ARRAY("Split", GpuSplitOp, .HostMemory("split_dim"));
FB_REGISTER_ARRAY("Unpack", GpuUnpackOp);
#undef FB_REGISTER_ARRAY

}  // namespace
}  // namespace fb::gpu
