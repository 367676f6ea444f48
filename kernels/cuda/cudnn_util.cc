#include "kernels/cuda/cudnn_util.h"

#include <climits>

#include "kernels/cuda/cuda_status.h"

namespace fb::gpu {
namespace {

Status CheckIntDims(const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    if (d > INT_MAX) return InvalidArgument("dimension ", d, " exceeds cuDNN's int range");
  return Status::OK();
}

// The output size cuDNN computes for one dimension with symmetric padding pad_before.
int64_t CudnnOutSize(const WindowDim& d) {
  const int64_t effective = (d.window - 1) * d.dilation + 1;
  return (d.in + 2 * d.pad_before - effective) / d.stride + 1;
}

}  // namespace

StatusOr<TensorDesc> NhwcDesc(cudnnDataType_t type, const std::vector<int64_t>& nhwc) {
  RETURN_IF_ERROR(CheckIntDims(nhwc));
  cudnnTensorDescriptor_t d;
  FB_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(&d));
  TensorDesc owned(d);
  FB_CUDNN_RETURN_IF_ERROR(cudnnSetTensor4dDescriptor(
      d, CUDNN_TENSOR_NHWC, type, static_cast<int>(nhwc[0]), static_cast<int>(nhwc[3]),
      static_cast<int>(nhwc[1]), static_cast<int>(nhwc[2])));
  return owned;
}

StatusOr<TensorDesc> RowsDesc(cudnnDataType_t type, int64_t n, int64_t c) {
  RETURN_IF_ERROR(CheckIntDims({n, c}));
  cudnnTensorDescriptor_t d;
  FB_CUDNN_RETURN_IF_ERROR(cudnnCreateTensorDescriptor(&d));
  TensorDesc owned(d);
  FB_CUDNN_RETURN_IF_ERROR(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, type,
                                                      static_cast<int>(n), static_cast<int>(c),
                                                      1, 1));
  return owned;
}

StatusOr<FilterDesc> OhwiFilterDesc(cudnnDataType_t type, const Conv2DShape& s) {
  RETURN_IF_ERROR(CheckIntDims(s.FilterDims()));
  cudnnFilterDescriptor_t d;
  FB_CUDNN_RETURN_IF_ERROR(cudnnCreateFilterDescriptor(&d));
  FilterDesc owned(d);
  FB_CUDNN_RETURN_IF_ERROR(cudnnSetFilter4dDescriptor(
      d, type, CUDNN_TENSOR_NHWC, static_cast<int>(s.out_depth), static_cast<int>(s.in_depth),
      static_cast<int>(s.rows.window), static_cast<int>(s.cols.window)));
  return owned;
}

Status CheckSymmetricPadding(const Conv2DShape& s) {
  if (CudnnOutSize(s.rows) == s.rows.out && CudnnOutSize(s.cols) == s.cols.out)
    return Status::OK();
  return Unimplemented("SAME padding of input ", DimsString(s.InputDims()), " with window ",
                       s.rows.window, "x", s.cols.window, " and strides ", s.rows.stride, "x",
                       s.cols.stride, " pads one side more than the other, which cuDNN cannot "
                       "express; run this node on the CPU");
}

StatusOr<Conv2DShape> SymmetricPaddedShape(const Conv2DShape& s) {
  Conv2DShape padded = s;
  for (WindowDim* d : {&padded.rows, &padded.cols}) {
    if (d->out <= 0) continue;  // empty outputs run no cuDNN call
    // Input extent the last window reaches, minus what the input and a symmetric pad give.
    const int64_t effective = (d->window - 1) * d->dilation + 1;
    const int64_t extra = (d->out - 1) * d->stride + effective - (d->in + 2 * d->pad_before);
    if (extra > 0) d->in += extra;
  }
  RETURN_IF_ERROR(CheckSymmetricPadding(padded));
  return padded;
}

StatusOr<ConvDesc> ConvolutionDesc(cudnnDataType_t type, const Conv2DShape& s, bool allow_tf32) {
  RETURN_IF_ERROR(CheckSymmetricPadding(s));
  cudnnConvolutionDescriptor_t d;
  FB_CUDNN_RETURN_IF_ERROR(cudnnCreateConvolutionDescriptor(&d));
  ConvDesc owned(d);
  FB_CUDNN_RETURN_IF_ERROR(cudnnSetConvolution2dDescriptor(
      d, static_cast<int>(s.rows.pad_before), static_cast<int>(s.cols.pad_before),
      static_cast<int>(s.rows.stride), static_cast<int>(s.cols.stride),
      static_cast<int>(s.rows.dilation), static_cast<int>(s.cols.dilation),
      CUDNN_CROSS_CORRELATION, type));
  FB_CUDNN_RETURN_IF_ERROR(
      cudnnSetConvolutionMathType(d, allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH));
  return owned;
}

template <typename T>
Status Transpose2D(GpuDevice* gpu, const T* src, int64_t rows, int64_t cols, T* dst) {
  if (rows == 0 || cols == 0) return Status::OK();
  // Column-major view: src is [cols, rows] with ld = cols; dst^T is [rows, cols] with ld = rows.
  const T one = 1, zero = 0;
  const int m = static_cast<int>(rows), n = static_cast<int>(cols);
  if constexpr (std::is_same_v<T, float>)
    FB_CUBLAS_RETURN_IF_ERROR(cublasSgeam(gpu->cublas(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                                          src, n, &zero, dst, m, dst, m));
  else
    FB_CUBLAS_RETURN_IF_ERROR(cublasDgeam(gpu->cublas(), CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                                          src, n, &zero, dst, m, dst, m));
  return Status::OK();
}

template Status Transpose2D<float>(GpuDevice*, const float*, int64_t, int64_t, float*);
template Status Transpose2D<double>(GpuDevice*, const double*, int64_t, int64_t, double*);

}  // namespace fb::gpu
