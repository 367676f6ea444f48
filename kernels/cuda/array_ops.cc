// GPU kernels of the array ops that move data: Slice, Pad, Transpose, Tile, ConcatV2, Concat,
// Pack, Split and Unpack (float and double; their shape, axis and index arguments are HostMemory,
// read on the host). Inputs are checked and output shapes computed by the code the CPU kernels use
// (kernels/cpu/array_io.h), so errors read the same; each copy is one strided-copy launch
// per input or output (array_kernels.cu) on the compute stream, over the fewest dimensions that
// describe it (Collapse). Whole-tensor results and pieces
// along dimension 0 share the input's buffer, as on the CPU.
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_io.h"
#include "kernels/cpu/join_cut_ops.h"
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

// The same copy over fewer dimensions, for fewer divisions per element in the kernel: dims of
// size 1 are dropped (their index is always 0), and a dimension is merged into the one before it
// where both are walked contiguously in source and destination and neither wraps (src_mod ==
// dims). A channel slice or concat of NHWC tensors becomes [batch * rows * cols, channels].
StridedCopy Collapse(const StridedCopy& c) {
  StridedCopy out;
  out.src_base = c.src_base;
  out.dst_base = c.dst_base;
  for (int d = 0; d < c.rank; ++d) {
    if (c.dims[d] == 1) continue;
    const int p = out.rank - 1;
    if (p >= 0 && c.src_mod[d] == c.dims[d] && out.src_mod[p] == out.dims[p] &&
        out.src_strides[p] == c.src_strides[d] * c.dims[d] &&
        out.dst_strides[p] == c.dst_strides[d] * c.dims[d]) {
      out.dims[p] *= c.dims[d];
      out.src_mod[p] = out.dims[p];
      out.src_strides[p] = c.src_strides[d];
      out.dst_strides[p] = c.dst_strides[d];
      continue;
    }
    out.dims[out.rank] = c.dims[d];
    out.src_mod[out.rank] = c.src_mod[d];
    out.src_strides[out.rank] = c.src_strides[d];
    out.dst_strides[out.rank] = c.dst_strides[d];
    ++out.rank;
  }
  return out;  // rank 0 for a single element: the kernel copies src_base to dst_base
}

void Launch(OpKernelContext* ctx, const Tensor& src, Tensor* dst, const StridedCopy& c) {
  int64_t n = 1;
  for (int d = 0; d < c.rank; ++d) n *= c.dims[d];
  LaunchStridedCopy(static_cast<int>(DataTypeSize(src.dtype())), src.raw_data(), dst->raw_data(),
                    n, Collapse(c), GpuOf(ctx)->compute_stream());
}

// MakeCopy's copy from `src` to `dst`, launched.
Status CopyStrided(OpKernelContext* ctx, const Tensor& src, Tensor* dst,
                   const std::vector<int64_t>& dims, const std::vector<int64_t>& src_strides,
                   int64_t src_base, const std::vector<int64_t>& dst_strides, int64_t dst_base) {
  ASSIGN_OR_RETURN(StridedCopy c, MakeCopy(dims, src_strides, src_base, dst_strides, dst_base));
  Launch(ctx, src, dst, c);
  return Status::OK();
}

// Host values of int input `i` (HostMemory, so already on the host): the array_io reader.
StatusOr<std::vector<int64_t>> HostInts(OpKernelContext* ctx, int i) {
  ASSIGN_OR_RETURN(Tensor t, HostInput(ctx, i));
  return IntTensorValues(t);
}

// Slice: the input itself, or one strided copy.
void RunSlice(OpKernelContext* ctx, const array_io::SliceArgs& args) {
  const Tensor& input = ctx->input(0);
  const TensorShape& shape = args.shape;
  auto out = array_io::ForwardOrAllocate(ctx, shape);
  OP_REQUIRES_OK(ctx, out.status());
  if (*out == nullptr) return;
  const std::vector<int64_t> in_strides = RowMajorStrides(input.shape().dim_sizes());
  int64_t base = 0;
  for (size_t d = 0; d < args.begin.size(); ++d) base += args.begin[d] * in_strides[d];
  OP_REQUIRES_OK(ctx, CopyStrided(ctx, input, *out, shape.dim_sizes(), in_strides, base,
                                  RowMajorStrides(shape.dim_sizes()), 0));
}

// Pad: zeros, then one strided copy of the input at the leading paddings.
void RunPad(OpKernelContext* ctx, const array_io::PadArgs& args) {
  const Tensor& input = ctx->input(0);
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, args.shape, &out));
  if (out->NumElements() == 0) return;
  OP_REQUIRES_OK(ctx, CudaStatus(cudaMemsetAsync(out->raw_data(), 0, out->ByteSize(),
                                                 GpuOf(ctx)->compute_stream()),
                                 "cudaMemsetAsync"));
  const std::vector<int64_t> out_strides = RowMajorStrides(args.shape.dim_sizes());
  int64_t base = 0;
  for (int d = 0; d < input.dims(); ++d) base += args.paddings[2 * d] * out_strides[d];
  OP_REQUIRES_OK(ctx, CopyStrided(ctx, input, out, input.shape().dim_sizes(),
                                  RowMajorStrides(input.shape().dim_sizes()), 0, out_strides,
                                  base));
}

// Transpose: the input itself for the identity permutation, else one strided copy.
void RunTranspose(OpKernelContext* ctx, const array_io::TransposeArgs& args) {
  const Tensor& x = ctx->input(0);
  if (args.identity) {
    ctx->forward_input(0, 0);
    return;
  }
  Tensor* y;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, args.shape, &y));
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dim_sizes());
  std::vector<int64_t> src_strides;
  for (int64_t p : args.perm) src_strides.push_back(in_strides[p]);
  OP_REQUIRES_OK(ctx, CopyStrided(ctx, x, y, args.shape.dim_sizes(), src_strides, 0,
                                  RowMajorStrides(args.shape.dim_sizes()), 0));
}

// Tile into output 0 of `shape` (the input itself when nothing is repeated): one strided copy
// whose source index wraps at the input's dims.
void RunTile(OpKernelContext* ctx, const TensorShape& shape) {
  const Tensor& input = ctx->input(0);
  auto out = array_io::ForwardOrAllocate(ctx, shape);
  OP_REQUIRES_OK(ctx, out.status());
  // (An empty output has an empty input dim: no launch, no modulo by zero.)
  if (*out == nullptr || (*out)->NumElements() == 0) return;
  auto c = MakeCopy(shape.dim_sizes(), RowMajorStrides(input.shape().dim_sizes()), 0,
                    RowMajorStrides(shape.dim_sizes()), 0);
  OP_REQUIRES_OK(ctx, c.status());
  for (int d = 0; d < input.dims(); ++d) c->src_mod[d] = input.dim_size(d);
  Launch(ctx, input, *out, *c);
}

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
    if (join) {
      RETURN_IF_ERROR(
          CopyStrided(ctx, *p, whole, {outer, width}, part_strides, 0, whole_strides, offset));
    } else {
      RETURN_IF_ERROR(
          CopyStrided(ctx, *whole, p, {outer, width}, whole_strides, offset, part_strides, 0));
    }
    offset += width;
  }
  return Status::OK();
}

// array_io::JoinFn: output 0, the values of `args` joined along its axis (ConcatV2, Concat, Pack).
void Join(OpKernelContext* ctx, array_io::JoinArgs args) {
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, args.shape, &out));
  std::vector<Tensor*> parts;
  for (Tensor& v : args.values) parts.push_back(&v);
  OP_REQUIRES_OK(ctx, CopyColumns(ctx, out, parts, Product(args.shape.dim_sizes(), 0, args.axis),
                                  true));
}

// array_io::CutFn: the outputs, the pieces of `args` cut out of input `value_input` (Split,
// Unpack): views for axis 0, else copies.
void Cut(OpKernelContext* ctx, int value_input, const array_io::CutArgs& args) {
  const Tensor& value = ctx->input(value_input);
  auto outs = array_io::CutOutputs(ctx, value, args);
  OP_REQUIRES_OK(ctx, outs.status());
  if (outs->empty()) return;
  Tensor whole = value;
  OP_REQUIRES_OK(ctx, CopyColumns(ctx, &whole, *outs,
                                  Product(value.shape().dim_sizes(), 0, args.axis), false));
}

// The kernels of array_io.h and join_cut_ops.h over the GPU's copies.
using GpuSliceOp = array_io::ArgsOp<array_io::SliceArgs, array_io::ReadSlice, HostInts, RunSlice>;
using GpuPadOp = array_io::ArgsOp<array_io::PadArgs, array_io::ReadPad, HostInts, RunPad>;
using GpuTransposeOp =
    array_io::ArgsOp<array_io::TransposeArgs, array_io::ReadTranspose, HostInts, RunTranspose>;
using GpuTileOp = array_io::ArgsOp<TensorShape, array_io::ReadTile, HostInts, RunTile>;
using GpuConcatOp = array_io::ConcatOp<Join, HostInts>;
using GpuPackOp = array_io::PackOp<Join>;
using GpuSplitOp = array_io::SplitOp<Cut, HostInts>;
using GpuUnpackOp = array_io::UnpackOp<Cut>;

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
