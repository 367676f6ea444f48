#pragma once
// Shared pieces of the CPU Conv2D kernels (conv_kernels.cc: forward, conv_backprop_kernels.cc:
// input and filter gradients). All three are im2col + GEMM (kernels/cpu/im2col.h): the batch is
// processed in chunks of images whose patch matrices stay in cache; chunks run in parallel on
// the intra-op pool, each as im2col (or col2im) and one OpenBLAS GEMM.
#include <memory>
#include <vector>

#include "kernels/cpu/im2col.h"
#include "kernels/cpu/nn_kernel_util.h"

namespace fb::nn {

// Target size of one chunk's patch matrix, in bytes: small enough to stay in a core's L2 cache
// between im2col writing it and the GEMM reading it.
inline constexpr int64_t kChunkPatchBytes = int64_t{256} << 10;

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

// Images per chunk so that a chunk's patch matrix stays near kChunkPatchBytes (at least one).
template <typename T>
int64_t ImagesPerChunk(const Conv2DShape& s) {
  int64_t per_image = std::max<int64_t>(1, PatchesPerImage(s) * PatchSize(s) * sizeof(T));
  return std::clamp<int64_t>(kChunkPatchBytes / per_image, 1, std::max<int64_t>(1, s.batch));
}

inline int64_t NumChunks(int64_t batch, int64_t chunk) { return (batch + chunk - 1) / chunk; }

// For each chunk c of images [n0, n0 + count): fn(c, n0, count, patches), where `patches` is
// scratch space for count patch matrices. Chunks are spread over the intra-op pool (each shard
// has its own scratch); the partition into chunks depends only on the shapes, so callers that
// keep one partial result per chunk and combine them in chunk order are deterministic.
template <typename T, typename Fn>
void ParallelChunks(OpKernelContext* ctx, const Conv2DShape& s, Fn fn) {
  const int64_t chunk = ImagesPerChunk<T>(s);
  const int64_t patch_values = chunk * PatchesPerImage(s) * PatchSize(s);
  // About one multiply-add per ns per patch value and output channel.
  const int64_t cost_ns = std::max<int64_t>(1, patch_values * std::max<int64_t>(1, s.out_depth) / 4);
  Shard(ctx, NumChunks(s.batch, chunk), cost_ns, [&](int64_t begin, int64_t end) {
    std::unique_ptr<T[]> patches(new T[std::max<int64_t>(1, patch_values)]);
    for (int64_t c = begin; c < end; ++c) {
      const int64_t n0 = c * chunk;
      fn(c, n0, std::min(chunk, s.batch - n0), patches.get());
    }
  });
}

// Im2Col of images [n0, n0 + count) of `input` (NHWC) into `patches`.
template <typename T>
void Im2ColChunk(const Conv2DShape& s, const T* input, int64_t n0, int64_t count, T* patches) {
  const int64_t image = s.rows.in * s.cols.in * s.in_depth;
  const int64_t patch_matrix = PatchesPerImage(s) * PatchSize(s);
  for (int64_t i = 0; i < count; ++i) Im2Col(s, input + (n0 + i) * image, patches + i * patch_matrix);
}

}  // namespace fb::nn
