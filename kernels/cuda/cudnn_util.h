#pragma once
// cuDNN descriptors as owning values, and the layouts flowbench uses with cuDNN: activations are
// NHWC (CUDNN_TENSOR_NHWC, no transposes); an element-wise or row-wise tensor of any rank is
// described as NCHW [1, n, 1, 1] or [rows, cols, 1, 1]; filters are given to cuDNN as
// [out_depth, rows, cols, in_depth] (CUDNN_TENSOR_NHWC filter format), transposed from flowbench's
// HWIO with cuBLAS geam (a 2-D transpose of [rows * cols * in_depth, out_depth]).
#include <cudnn.h>

#include <memory>
#include <type_traits>

#include "engine/framework/tensor.h"
#include "engine/ops/nn_ops_common.h"
#include "kernels/cuda/gpu_device.h"

namespace fb::gpu {

template <typename T>
inline constexpr cudnnDataType_t kCudnnType =
    std::is_same_v<T, double> ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;

struct TensorDescDeleter {
  void operator()(cudnnTensorStruct* d) const { cudnnDestroyTensorDescriptor(d); }
};
struct FilterDescDeleter {
  void operator()(cudnnFilterStruct* d) const { cudnnDestroyFilterDescriptor(d); }
};
struct ConvDescDeleter {
  void operator()(cudnnConvolutionStruct* d) const { cudnnDestroyConvolutionDescriptor(d); }
};
struct PoolDescDeleter {
  void operator()(cudnnPoolingStruct* d) const { cudnnDestroyPoolingDescriptor(d); }
};
using TensorDesc = std::unique_ptr<cudnnTensorStruct, TensorDescDeleter>;
using FilterDesc = std::unique_ptr<cudnnFilterStruct, FilterDescDeleter>;
using ConvDesc = std::unique_ptr<cudnnConvolutionStruct, ConvDescDeleter>;
using PoolDesc = std::unique_ptr<cudnnPoolingStruct, PoolDescDeleter>;

// dims [n, h, w, c] in NHWC layout.
StatusOr<TensorDesc> NhwcDesc(cudnnDataType_t type, const std::vector<int64_t>& nhwc);
// [n, c, 1, 1] NCHW: `c` contiguous values per row (softmax over c), or n = 1 for element-wise.
StatusOr<TensorDesc> RowsDesc(cudnnDataType_t type, int64_t n, int64_t c);
// Filter [out_depth, rows, cols, in_depth] (cuDNN's NHWC filter format).
StatusOr<FilterDesc> OhwiFilterDesc(cudnnDataType_t type, const Conv2DShape& s);
// Cross-correlation with the shape's strides, dilations and (symmetric) padding; TF32 allowed
// only if the device allows it. Unimplemented for asymmetric SAME padding (an odd total pad),
// which cuDNN cannot express: pass SymmetricPaddedShape(s) and pad the input explicitly.
StatusOr<ConvDesc> ConvolutionDesc(cudnnDataType_t type, const Conv2DShape& s, bool allow_tf32);
// Checks that a windowed op's SAME padding is symmetric (cuDNN pads both sides equally).
// Unimplemented otherwise.
Status CheckSymmetricPadding(const Conv2DShape& s);
// The geometry cuDNN runs for `s`: where SAME padding puts more rows (columns) after the input
// than before (TensorFlow puts the odd one of an odd total at the bottom/right), the input grows
// by the difference at the bottom (right), to be filled by the caller with explicit padding
// (window_launch.h), so that the padding left is symmetric: same output dims and pad_before as
// `s`. Returns `s` unchanged when its padding is already symmetric; Unimplemented (from
// CheckSymmetricPadding) if the result still is not expressible.
StatusOr<Conv2DShape> SymmetricPaddedShape(const Conv2DShape& s);
// Whether `padded` (from SymmetricPaddedShape(s)) has a larger input than `s`.
inline bool NeedsExplicitPadding(const Conv2DShape& s, const Conv2DShape& padded) {
  return padded.rows.in != s.rows.in || padded.cols.in != s.cols.in;
}

// dst[cols, rows] = src[rows, cols]^T for dense row-major matrices, on the compute stream
// (cublas{S,D}geam). Used for HWIO <-> OHWI filter layouts. Requires gpu->library_mu() held.
template <typename T>
Status Transpose2D(GpuDevice* gpu, const T* src, int64_t rows, int64_t cols, T* dst);

}  // namespace fb::gpu
