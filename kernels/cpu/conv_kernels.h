#pragma once
// Shared pieces of the CPU Conv2D kernels (conv_kernels.cc: forward, conv_backprop_kernels.cc:
// input and filter gradients). All three are im2col + GEMM (kernels/cpu/im2col.h): the batch is
// processed in chunks of images whose patch matrices fit a bounded scratch buffer; im2col /
// col2im of a chunk is sharded over its images on the intra-op pool and each chunk is one
// OpenBLAS GEMM (which threads itself).
#include <vector>

#include "kernels/cpu/im2col.h"
#include "kernels/cpu/nn_kernel_util.h"

namespace fb::nn {

// Upper bound on the scratch patch matrix of one chunk, in bytes.
inline constexpr int64_t kMaxPatchBufferBytes = int64_t{16} << 20;

// Parses the conv attrs (strides, padding, dilations, data_format) once per kernel.
class ConvKernelBase : public OpKernel {
 public:
  explicit ConvKernelBase(OpKernelConstruction* c) : OpKernel(c) {
    auto attrs = ParseWindow2DAttrs(c->def().attrs, /*pooling=*/false);
    if (attrs.ok()) attrs_ = *attrs;
    else c->SetStatus(attrs.status());
  }

 protected:
  // The geometry of a Conv2D with these input and filter dims (errors as ComputeConv2DShape).
  StatusOr<Conv2DShape> Shape(const std::vector<int64_t>& input,
                              const std::vector<int64_t>& filter) const {
    for (int64_t d : input)
      if (d < 0) return InvalidArgument("input sizes must be non-negative, got ", DimsString(input));
    for (int64_t d : filter)
      if (d < 0)
        return InvalidArgument("filter sizes must be non-negative, got ", DimsString(filter));
    return ComputeConv2DShape(input, filter, attrs_);
  }
  Window2DAttrs attrs_;
};

// The dims held by an int32 sizes input (input_sizes / filter_sizes): InvalidArgument unless it
// is a vector of 4 entries.
inline StatusOr<std::vector<int64_t>> SizesFromTensor(const Tensor& t, const char* name) {
  if (t.dims() != 1 || t.NumElements() != 4)
    return InvalidArgument(name, " must be a vector of 4 sizes, got shape ",
                           t.shape().DebugString());
  const int32_t* v = t.data<int32_t>();
  return std::vector<int64_t>(v, v + 4);
}

// InvalidArgument unless out_backprop has the forward output's shape.
inline Status CheckOutBackprop(const Conv2DShape& s, const Tensor& out_backprop) {
  std::vector<int64_t> want = s.OutputDims();
  if (out_backprop.shape().dim_sizes() == want) return Status::OK();
  return InvalidArgument("out_backprop has shape ", out_backprop.shape().DebugString(),
                         " but Conv2D of input ", DimsString(s.InputDims()), " and filter ",
                         DimsString(s.FilterDims()), " produces ", DimsString(want));
}

// Images per chunk so that a chunk's patch matrix stays under kMaxPatchBufferBytes.
template <typename T>
int64_t ImagesPerChunk(const Conv2DShape& s) {
  int64_t per_image = std::max<int64_t>(1, PatchesPerImage(s) * PatchSize(s) * sizeof(T));
  return std::clamp<int64_t>(kMaxPatchBufferBytes / per_image, 1, std::max<int64_t>(1, s.batch));
}

// For each chunk [n0, n0 + count) of images: fn(n0, count, patches), where `patches` is scratch
// space for count patch matrices. Allocation failures go to ctx.
template <typename T, typename Fn>
void ForEachChunk(OpKernelContext* ctx, const Conv2DShape& s, Fn fn) {
  const int64_t chunk = ImagesPerChunk<T>(s);
  Tensor scratch;
  OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                         TensorShape{chunk * PatchesPerImage(s) * PatchSize(s)},
                                         &scratch));
  for (int64_t n0 = 0; n0 < s.batch; n0 += chunk)
    fn(n0, std::min(chunk, s.batch - n0), scratch.data<T>());
}

// Im2Col of images [n0, n0 + count) of `input` (NHWC) into `patches`, sharded over images.
template <typename T>
void Im2ColChunk(OpKernelContext* ctx, const Conv2DShape& s, const T* input, int64_t n0,
                 int64_t count, T* patches) {
  const int64_t image = s.rows.in * s.cols.in * s.in_depth;
  const int64_t patch_matrix = PatchesPerImage(s) * PatchSize(s);
  Shard(ctx, count, std::max<int64_t>(1, patch_matrix / 4), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) Im2Col(s, input + (n0 + i) * image, patches + i * patch_matrix);
  });
}

}  // namespace fb::nn
