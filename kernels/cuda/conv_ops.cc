// GPU Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter through cuDNN (whitepaper 5.4), NHWC
// activations. The HWIO filter is transposed to cuDNN's [out, rows, cols, in] layout on the
// compute stream (and the filter gradient back). For each distinct geometry the algorithm is
// chosen once by cuDNN's autotuner (cudnnFind*Algorithm, which times the candidates) and cached
// per GPU; workspaces come from the BFC pool. TF32 only when the
// device allows it. Asymmetric SAME padding (TensorFlow puts the odd row/column of an odd total
// pad at the bottom/right, e.g. a 7x7 stride-2 conv on 224x224) is run as TensorFlow's GPU kernel
// does: the input is copied into a temporary with the extra zero rows/columns at the bottom/right
// and cuDNN runs with the smaller symmetric padding; Conv2DBackpropInput computes the gradient of
// that padded input and crops it (window_launch.h). Where cuDNN has no algorithm at all for a
// geometry and data type (double-precision NHWC gradients of strided convolutions on cuDNN 9.19),
// the direct kernels of conv_direct_launch.h compute it instead: slower, never a refusal.
// 1x1 convolutions with unit strides (most of GoogLeNet's) skip cuDNN and the filter transposes:
// each of the three is one cuBLAS GEMM (IsPointwise). _FusedConv2D (the fuse_conv_bias_relu
// pass) is Conv2D followed by one bias + Relu kernel (bias_relu_launch.h).
#include <atomic>
#include <climits>
#include <map>
#include <tuple>

#include "engine/ops/fused_conv_attrs.h"
#include "kernels/bias_shapes.h"
#include "kernels/cuda/conv_direct_launch.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/cudnn_util.h"
#include "kernels/cuda/bias_relu_launch.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/window_launch.h"

namespace fb::gpu {
namespace {

enum class ConvKind { kForward, kBackpropInput, kBackpropFilter };

// AlgoChoice::algo of the direct kernels (conv_direct_launch.h), for geometries cuDNN refuses.
constexpr int kDirectAlgo = -1;

std::atomic<bool> g_direct_forced{false};

// The chosen algorithm (as an int of the kind's enum, or kDirectAlgo) and its workspace.
struct AlgoChoice {
  int algo = 0;
  size_t workspace_bytes = 0;
};

// Cache key: device, kind, dtype and the full geometry.
using AlgoKey = std::tuple<int, int, int, std::vector<int64_t>>;

std::vector<int64_t> Geometry(const Conv2DShape& s) {
  return {s.batch, s.rows.in, s.cols.in, s.in_depth, s.out_depth, s.rows.window, s.cols.window,
          s.rows.stride, s.cols.stride, s.rows.dilation, s.cols.dilation, s.rows.pad_before,
          s.cols.pad_before};
}

class AlgoCache {
 public:
  static AlgoCache* Global() {
    static auto* c = new AlgoCache;
    return c;
  }
  bool Lookup(const AlgoKey& k, AlgoChoice* out) {
    std::lock_guard<std::mutex> l(mu_);
    auto it = map_.find(k);
    if (it == map_.end()) return false;
    *out = it->second;
    return true;
  }
  void Insert(const AlgoKey& k, AlgoChoice c) {
    std::lock_guard<std::mutex> l(mu_);
    map_[k] = c;
  }

 private:
  std::mutex mu_;
  std::map<AlgoKey, AlgoChoice> map_;
};

// Descriptors of one convolution.
struct ConvDescs {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;
};

template <typename T>
StatusOr<ConvDescs> MakeDescs(const Conv2DShape& s, bool allow_tf32) {
  ConvDescs d;
  ASSIGN_OR_RETURN(d.x, NhwcDesc(kCudnnType<T>, s.InputDims()));
  ASSIGN_OR_RETURN(d.y, NhwcDesc(kCudnnType<T>, s.OutputDims()));
  ASSIGN_OR_RETURN(d.w, OhwiFilterDesc(kCudnnType<T>, s));
  ASSIGN_OR_RETURN(d.conv, ConvolutionDesc(kCudnnType<T>, s, allow_tf32));
  return d;
}

// Picks the fastest successful algorithm whose workspace is at most 1 GiB (cuDNN's timings).
template <typename Perf>
StatusOr<AlgoChoice> Best(const Perf* perf, int n) {
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= (size_t{1} << 30))
      return AlgoChoice{static_cast<int>(perf[i].algo), perf[i].memory};
  return Internal("cuDNN found no usable convolution algorithm");
}

// cuDNN's algorithm 0 of `kind` (implicit GEMM, every data type and shape) with its workspace:
// the fallback when the search finds nothing (double-precision backprops, for instance).
StatusOr<AlgoChoice> AlgoZero(cudnnHandle_t h, ConvKind kind, const ConvDescs& d) {
  size_t bytes = 0;
  if (kind == ConvKind::kForward) {
    FB_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionForwardWorkspaceSize(
        h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
        &bytes));
    return AlgoChoice{static_cast<int>(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM), bytes};
  }
  if (kind == ConvKind::kBackpropInput) {
    FB_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardDataWorkspaceSize(
        h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), CUDNN_CONVOLUTION_BWD_DATA_ALGO_0,
        &bytes));
    return AlgoChoice{static_cast<int>(CUDNN_CONVOLUTION_BWD_DATA_ALGO_0), bytes};
  }
  FB_CUDNN_RETURN_IF_ERROR(cudnnGetConvolutionBackwardFilterWorkspaceSize(
      h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0,
      &bytes));
  return AlgoChoice{static_cast<int>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0), bytes};
}

StatusOr<AlgoChoice> FindAlgo(GpuDevice* gpu, ConvKind kind, const ConvDescs& d) {
  constexpr int kMax = 16;
  int n = 0;
  cudnnHandle_t h = gpu->cudnn();
  StatusOr<AlgoChoice> best = Internal("cuDNN found no usable convolution algorithm");
  if (kind == ConvKind::kForward) {
    cudnnConvolutionFwdAlgoPerf_t perf[kMax];
    FB_CUDNN_RETURN_IF_ERROR(cudnnFindConvolutionForwardAlgorithm(
        h, d.x.get(), d.w.get(), d.conv.get(), d.y.get(), kMax, &n, perf));
    best = Best(perf, n);
  } else if (kind == ConvKind::kBackpropInput) {
    cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
    FB_CUDNN_RETURN_IF_ERROR(cudnnFindConvolutionBackwardDataAlgorithm(
        h, d.w.get(), d.y.get(), d.conv.get(), d.x.get(), kMax, &n, perf));
    best = Best(perf, n);
  } else {
    cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
    FB_CUDNN_RETURN_IF_ERROR(cudnnFindConvolutionBackwardFilterAlgorithm(
        h, d.x.get(), d.y.get(), d.conv.get(), d.w.get(), kMax, &n, perf));
    best = Best(perf, n);
  }
  if (best.ok()) return best;
  auto zero = AlgoZero(h, kind, d);
  if (zero.ok()) return zero;
  // Seen on an H200 with cuDNN 9.19: no double-precision NHWC filter or input gradient algorithm
  // for some strided shapes, not even algorithm 0.
  return AlgoChoice{kDirectAlgo, 0};
}

// Whether `s` is a 1x1 convolution with unit strides and no padding (output = input positions):
// then, in NHWC with an HWIO filter, the forward is the GEMM y[M, out] = x[M, in] w[in, out]
// (M = batch * rows * cols) and both gradients are GEMMs too, with no filter transpose. As
// TensorFlow's GPU kernels do (LaunchConv2DOp and the backprops), these run on cuBLAS, with the
// device's TF32 setting (cublas_gemm.h). Sizes must fit cuBLAS's int.
bool IsPointwise(const Conv2DShape& s) {
  const int64_t m = s.batch * s.rows.in * s.cols.in;
  return s.rows.window == 1 && s.cols.window == 1 && s.rows.stride == 1 && s.cols.stride == 1 &&
         s.rows.pad_before == 0 && s.cols.pad_before == 0 && s.rows.out == s.rows.in &&
         s.cols.out == s.cols.in && m <= INT_MAX && s.in_depth <= INT_MAX &&
         s.out_depth <= INT_MAX;
}

// The three kernels differ in which of x, w, y they read and write; the rest is shared here.
template <typename T, ConvKind kKind>
class GpuConvOp : public OpKernel {
 public:
  explicit GpuConvOp(OpKernelConstruction* c) : OpKernel(c) {
    auto attrs = ParseWindow2DAttrs(c->def().attrs, /*pooling=*/false);
    if (attrs.ok()) attrs_ = *attrs;
    else c->SetStatus(attrs.status());
  }

  void Compute(OpKernelContext* ctx) override {
    auto shape = Shape(ctx);
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    GpuDevice* gpu = GpuOf(ctx);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(OutDims(s)), &out));
    if (out->NumElements() == 0) return;
    if (HasEmptyOperand(s)) {  // every output element sums over nothing: zeros, as on the CPU
      OP_REQUIRES_OK(ctx, CudaStatus(cudaMemsetAsync(out->raw_data(), 0,
                                                     sizeof(T) * out->NumElements(),
                                                     gpu->compute_stream()),
                                     "cudaMemsetAsync of an empty convolution's output"));
      return;
    }
    if (IsPointwise(s) && !g_direct_forced.load()) {
      OP_REQUIRES_OK(ctx, RunPointwise(ctx, gpu, s, out));
      return;
    }
    // cuDNN runs on `ps`: the input grown at the bottom/right where SAME padding is asymmetric.
    auto padded_shape = SymmetricPaddedShape(s);
    OP_REQUIRES_OK(ctx, padded_shape.status());
    const Conv2DShape& ps = *padded_shape;
    auto descs = MakeDescs<T>(ps, gpu->allow_tf32());
    OP_REQUIRES_OK(ctx, descs.status());
    std::lock_guard<std::mutex> l(*gpu->library_mu());
    auto algo = Algo(gpu, ps, *descs);
    OP_REQUIRES_OK(ctx, algo.status());
    if (algo->algo == kDirectAlgo) {
      OP_REQUIRES_OK(ctx, RunDirect(ctx, gpu, s, out));
      return;
    }
    Tensor workspace, w_ohwi, x_padded;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataType::kInt8,
                                           {static_cast<int64_t>(algo->workspace_bytes)},
                                           &workspace));
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                           TensorShape(s.FilterDims()), &w_ohwi));
    if (NeedsExplicitPadding(s, ps))
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value,
                                             TensorShape(ps.InputDims()), &x_padded));
    OP_REQUIRES_OK(ctx, Run(ctx, gpu, s, ps, *descs, *algo, workspace, w_ohwi, x_padded, out));
  }

 private:
  // input_sizes / filter_sizes of the backprops are small int32 inputs read on the host.
  StatusOr<Conv2DShape> Shape(OpKernelContext* ctx) const {
    std::vector<int64_t> input, filter;
    if (kKind == ConvKind::kBackpropInput) {
      ASSIGN_OR_RETURN(Tensor sizes, HostInput(ctx, 0));
      input = IntValues(sizes);
    } else {
      input = ctx->input(0).shape().dim_sizes();
    }
    if (kKind == ConvKind::kBackpropFilter) {
      ASSIGN_OR_RETURN(Tensor sizes, HostInput(ctx, 1));
      filter = IntValues(sizes);
    } else {
      filter = ctx->input(1).shape().dim_sizes();
    }
    if (input.size() != 4 || filter.size() != 4)
      return InvalidArgument("input and filter sizes must have 4 entries, got ",
                             DimsString(input), " and ", DimsString(filter));
    ASSIGN_OR_RETURN(Conv2DShape s, ComputeConv2DShape(input, filter, attrs_));
    if (kKind != ConvKind::kForward && ctx->input(2).shape().dim_sizes() != s.OutputDims())
      return InvalidArgument("out_backprop has shape ", ctx->input(2).shape().DebugString(),
                             " but Conv2D of input ", DimsString(s.InputDims()), " and filter ",
                             DimsString(s.FilterDims()), " produces ", DimsString(s.OutputDims()));
    return s;
  }
  static std::vector<int64_t> IntValues(const Tensor& t) {
    const int32_t* v = t.data<int32_t>();
    return std::vector<int64_t>(v, v + t.NumElements());
  }
  // Whether input, filter or output has no elements (cuDNN rejects zero dims).
  static bool HasEmptyOperand(const Conv2DShape& s) {
    for (const auto& dims : {s.InputDims(), s.FilterDims(), s.OutputDims()})
      for (int64_t d : dims)
        if (d == 0) return true;
    return false;
  }
  static std::vector<int64_t> OutDims(const Conv2DShape& s) {
    if (kKind == ConvKind::kForward) return s.OutputDims();
    return kKind == ConvKind::kBackpropInput ? s.InputDims() : s.FilterDims();
  }

  // Requires library_mu held.
  StatusOr<AlgoChoice> Algo(GpuDevice* gpu, const Conv2DShape& s, const ConvDescs& d) const {
    if (g_direct_forced.load()) return AlgoChoice{kDirectAlgo, 0};
    AlgoKey key{gpu->ordinal(), static_cast<int>(kKind), static_cast<int>(kCudnnType<T>),
                Geometry(s)};
    AlgoChoice c;
    if (AlgoCache::Global()->Lookup(key, &c)) return c;
    ASSIGN_OR_RETURN(c, FindAlgo(gpu, kKind, d));
    AlgoCache::Global()->Insert(key, c);
    return c;
  }

  // Requires library_mu held. HWIO is [k, out_depth] row-major with k = rows * cols * in_depth.
  // `x_padded` ([ps.InputDims()]) is allocated only when `ps` grows the input of `s`: the forward
  // and filter gradient read the zero-padded input from it, the input gradient is written to it
  // and cropped into `out`. Everything is enqueued on the compute stream, in order.
  Status Run(OpKernelContext* ctx, GpuDevice* gpu, const Conv2DShape& s, const Conv2DShape& ps,
             const ConvDescs& d, const AlgoChoice& a, const Tensor& ws, const Tensor& w_ohwi,
             const Tensor& x_padded, Tensor* out) const {
    const int64_t k = s.rows.window * s.cols.window * s.in_depth;
    const bool pad = NeedsExplicitPadding(s, ps);
    const int64_t extra_rows = ps.rows.in - s.rows.in, extra_cols = ps.cols.in - s.cols.in;
    cudaStream_t stream = gpu->compute_stream();
    const T one = 1, zero = 0;
    cudnnHandle_t h = gpu->cudnn();
    void* work = ws.raw_data();
    T* w = w_ohwi.data<T>();
    const T* x = nullptr;  // the (padded) input of the forward and filter gradient
    if (kKind != ConvKind::kBackpropInput) {
      x = ctx->input(0).data<T>();
      if (pad) {
        LaunchPadBottomRight<T>(x, s.batch, s.rows.in, s.cols.in, s.in_depth, extra_rows,
                                extra_cols, T(0), x_padded.data<T>(), stream);
        x = x_padded.data<T>();
      }
    }
    if (kKind == ConvKind::kForward) {
      RETURN_IF_ERROR(Transpose2D<T>(gpu, ctx->input(1).data<T>(), k, s.out_depth, w));
      FB_CUDNN_RETURN_IF_ERROR(cudnnConvolutionForward(
          h, &one, d.x.get(), x, d.w.get(), w, d.conv.get(),
          static_cast<cudnnConvolutionFwdAlgo_t>(a.algo), work, a.workspace_bytes, &zero,
          d.y.get(), out->data<T>()));
    } else if (kKind == ConvKind::kBackpropInput) {
      T* dx = pad ? x_padded.data<T>() : out->data<T>();
      RETURN_IF_ERROR(Transpose2D<T>(gpu, ctx->input(1).data<T>(), k, s.out_depth, w));
      FB_CUDNN_RETURN_IF_ERROR(cudnnConvolutionBackwardData(
          h, &one, d.w.get(), w, d.y.get(), ctx->input(2).data<T>(), d.conv.get(),
          static_cast<cudnnConvolutionBwdDataAlgo_t>(a.algo), work, a.workspace_bytes, &zero,
          d.x.get(), dx));
      if (pad)
        LaunchCropBottomRight<T>(dx, s.batch, s.rows.in, s.cols.in, s.in_depth, extra_rows,
                                 extra_cols, out->data<T>(), stream);
    } else {
      FB_CUDNN_RETURN_IF_ERROR(cudnnConvolutionBackwardFilter(
          h, &one, d.x.get(), x, d.y.get(), ctx->input(2).data<T>(), d.conv.get(),
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(a.algo), work, a.workspace_bytes, &zero,
          d.w.get(), w));
      RETURN_IF_ERROR(Transpose2D<T>(gpu, w, s.out_depth, k, out->data<T>()));
    }
    return Status::OK();  // launch errors: GpuDevice::Compute checks cudaGetLastError
  }

  // A 1x1 convolution (IsPointwise) as one cuBLAS GEMM on the compute stream; Gemm takes
  // library_mu itself. Row-major, M = batch * rows * cols: the filter [in, out] is HWIO itself.
  static Status RunPointwise(OpKernelContext* ctx, GpuDevice* gpu, const Conv2DShape& s,
                             Tensor* out) {
    const int64_t m = s.batch * s.rows.in * s.cols.in;
    if (kKind == ConvKind::kForward)  // y[m, out] = x[m, in] w[in, out]
      return Gemm<T>(gpu, GemmDims{m, s.in_depth, s.out_depth}, false, false,
                     ctx->input(0).data<T>(), ctx->input(1).data<T>(), out->data<T>());
    if (kKind == ConvKind::kBackpropInput)  // dx[m, in] = dy[m, out] w[in, out]^T
      return Gemm<T>(gpu, GemmDims{m, s.out_depth, s.in_depth}, false, true,
                     ctx->input(2).data<T>(), ctx->input(1).data<T>(), out->data<T>());
    // dw[in, out] = x[m, in]^T dy[m, out]
    return Gemm<T>(gpu, GemmDims{s.in_depth, m, s.out_depth}, true, false,
                   ctx->input(0).data<T>(), ctx->input(2).data<T>(), out->data<T>());
  }

  // The direct kernels on the unpadded geometry `s` (they read out-of-range rows as zeros).
  Status RunDirect(OpKernelContext* ctx, GpuDevice* gpu, const Conv2DShape& s, Tensor* out) const {
    DirectConvGeometry g;
    g.batch = s.batch;
    g.rows = s.rows.in;
    g.cols = s.cols.in;
    g.in_depth = s.in_depth;
    g.out_rows = s.rows.out;
    g.out_cols = s.cols.out;
    g.out_depth = s.out_depth;
    g.window_rows = s.rows.window;
    g.window_cols = s.cols.window;
    g.stride_rows = s.rows.stride;
    g.stride_cols = s.cols.stride;
    g.dilation_rows = s.rows.dilation;
    g.dilation_cols = s.cols.dilation;
    g.pad_rows = s.rows.pad_before;
    g.pad_cols = s.cols.pad_before;
    cudaStream_t stream = gpu->compute_stream();
    if (kKind == ConvKind::kForward)
      LaunchDirectConv2D<T>(ctx->input(0).data<T>(), ctx->input(1).data<T>(), g,
                            out->data<T>(), stream);
    else if (kKind == ConvKind::kBackpropInput)
      LaunchDirectConv2DBackpropInput<T>(ctx->input(1).data<T>(), ctx->input(2).data<T>(), g,
                                         out->data<T>(), stream);
    else
      LaunchDirectConv2DBackpropFilter<T>(ctx->input(0).data<T>(), ctx->input(2).data<T>(), g,
                                          out->data<T>(), stream);
    return Status::OK();  // launch errors: GpuDevice::Compute checks cudaGetLastError
  }

  Window2DAttrs attrs_;
};

template <typename T>
using GpuConv2DOp = GpuConvOp<T, ConvKind::kForward>;

// _FusedConv2D (the fuse_conv_bias_relu pass): the Conv2D above, then bias (+ Relu) in one pass
// over the output on the same stream (bias_relu_launch.h), in place of a BiasAdd and a Relu.
template <typename T>
class GpuFusedConv2DOp : public GpuConv2DOp<T> {
 public:
  explicit GpuFusedConv2DOp(OpKernelConstruction* c) : GpuConv2DOp<T>(c) {
    auto relu = FusedConvAppliesRelu(c->def().attrs);
    if (relu.ok()) relu_ = *relu;
    else c->SetStatus(relu.status());
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& bias = ctx->input(2);
    if (filter.dims() == 4)  // otherwise the convolution names the filter's shape
      OP_REQUIRES_OK(ctx, CheckConvBiasShape(bias.shape(), filter.dim_size(3)));
    GpuConv2DOp<T>::Compute(ctx);
    if (!ctx->status().ok()) return;
    const Tensor& out = ctx->output_value(0).tensor;
    LaunchBiasActivation<T>(out.data<T>(), bias.data<T>(), out.NumElements(), bias.NumElements(),
                            relu_, out.data<T>(), GpuOf(ctx)->compute_stream());
  }

 private:
  bool relu_ = false;
};
template <typename T>
using GpuConv2DBackpropInputOp = GpuConvOp<T, ConvKind::kBackpropInput>;
template <typename T>
using GpuConv2DBackpropFilterOp = GpuConvOp<T, ConvKind::kBackpropFilter>;

FB_REGISTER_GPU_FD("Conv2D", GpuConv2DOp);
FB_REGISTER_GPU_FD("_FusedConv2D", GpuFusedConv2DOp);
FB_REGISTER_GPU_FD_HOST("Conv2DBackpropInput", GpuConv2DBackpropInputOp, "input_sizes");
FB_REGISTER_GPU_FD_HOST("Conv2DBackpropFilter", GpuConv2DBackpropFilterOp, "filter_sizes");

}  // namespace

void SetDirectConvolutionForced(bool forced) { g_direct_forced.store(forced); }

}  // namespace fb::gpu
