// CPU MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad over NHWC tensors
// (engine/ops/nn_ops_pool.cc). Work is sharded over images (their gradients are disjoint);
// within an image each window is reduced over channels as Eigen vectors. MaxPool propagates NaN
// (a NaN in a window makes its output NaN, as TensorFlow's and NumPy's max do). MaxPoolGrad
// recomputes each window's argmax per channel (the first NaN in row-major window order if the
// window has one, else the first maximum, as TensorFlow's CPU kernel does) and routes the
// gradient there.
#include <algorithm>
#include <limits>

#include "engine/ops/nn_ops_common.h"
#include "kernels/cpu/cwise_binary.h"
#include "kernels/cpu/nn_kernel_util.h"

namespace fb {
namespace {

using nn::ArrayMap;

// The in-bounds input window of one output position.
struct Window {
  int64_t out;             // output position (oh * out_cols + ow)
  int64_t h_lo, h_hi;      // input rows [h_lo, h_hi)
  int64_t w_lo, w_hi;      // input cols [w_lo, w_hi)
  int64_t Count() const { return (h_hi - h_lo) * (w_hi - w_lo); }
};

template <typename Fn>
void ForEachWindow(const Conv2DShape& s, Fn fn) {
  for (int64_t oh = 0; oh < s.rows.out; ++oh) {
    int64_t h0 = oh * s.rows.stride - s.rows.pad_before;
    for (int64_t ow = 0; ow < s.cols.out; ++ow) {
      int64_t w0 = ow * s.cols.stride - s.cols.pad_before;
      fn(Window{oh * s.cols.out + ow, std::max<int64_t>(h0, 0),
                std::min(h0 + s.rows.window, s.rows.in), std::max<int64_t>(w0, 0),
                std::min(w0 + s.cols.window, s.cols.in)});
    }
  }
}

class PoolKernelBase : public OpKernel {
 public:
  explicit PoolKernelBase(OpKernelConstruction* c) : OpKernel(c) {
    auto attrs = ParseWindow2DAttrs(c->def().attrs, /*pooling=*/true);
    if (attrs.ok()) attrs_ = *attrs;
    else c->SetStatus(attrs.status());
  }

 protected:
  // Geometry for an input of `dims`, and a check that `pooled` (if given) has the output shape.
  StatusOr<Conv2DShape> Shape(const std::vector<int64_t>& dims, const Tensor* pooled = nullptr,
                              const char* pooled_name = "") const {
    ASSIGN_OR_RETURN(Conv2DShape s, ComputePool2DShape(dims, attrs_));
    if (pooled && pooled->shape().dim_sizes() != s.OutputDims())
      return InvalidArgument(pooled_name, " must have the pooled shape ",
                             DimsString(s.OutputDims()), ", got shape ",
                             pooled->shape().DebugString());
    return s;
  }
  // Runs fn(image) for every image index, sharded over the intra-op pool.
  template <typename Fn>
  void ForEachImage(OpKernelContext* ctx, const Conv2DShape& s, Fn fn) const {
    int64_t cost = s.rows.in * s.cols.in * s.in_depth + s.rows.out * s.cols.out * s.in_depth;
    nn::Shard(ctx, s.batch, cost, [&](int64_t b, int64_t e) {
      for (int64_t n = b; n < e; ++n) fn(n);
    });
  }
  Window2DAttrs attrs_;
};

template <typename T, bool kMax>
class PoolOp : public PoolKernelBase {
 public:
  using PoolKernelBase::PoolKernelBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    auto shape = Shape(input.shape().dim_sizes());
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(s.OutputDims()), &out));
    const int64_t depth = s.in_depth, in_image = s.rows.in * s.cols.in * depth;
    const int64_t out_image = s.rows.out * s.cols.out * depth;
    ForEachImage(ctx, s, [&](int64_t n) {
      const T* x = input.data<T>() + n * in_image;
      T* y = out->data<T>() + n * out_image;
      ForEachWindow(s, [&](const Window& w) {
        ArrayMap<T> acc(y + w.out * depth, depth);
        acc.setConstant(kMax ? -std::numeric_limits<T>::infinity() : T(0));
        for (int64_t h = w.h_lo; h < w.h_hi; ++h)
          for (int64_t c = w.w_lo; c < w.w_hi; ++c) {
            nn::ConstArrayMap<T> v(x + (h * s.cols.in + c) * depth, depth);
            if (kMax) acc = acc.binaryExpr(v, cwise::MaxOp<T>());
            else acc += v;
          }
        if (!kMax) acc /= T(w.Count());
      });
    });
  }
};

// best[c], arg[c] = v[c], offset wherever v[c] beats best[c]: larger, or the window's first NaN
// (v != v). Branch-free over channels in groups of 8, which the compiler vectorizes (the branchy
// loop mispredicted on about every other value of random data).
template <typename T, typename Index>
void UpdateArgmax(const T* __restrict v, Index offset, int64_t depth, T* __restrict best,
                  Index* __restrict arg) {
  int64_t c = 0;
  for (; c + 8 <= depth; c += 8)
    for (int l = 0; l < 8; ++l) {  // a constant trip count: vectorized at -O2
      const T x = v[c + l], b = best[c + l];
      const bool beats = (x > b) | ((x != x) & (b == b));
      best[c + l] = beats ? x : b;
      arg[c + l] = beats ? offset : arg[c + l];
    }
  for (; c < depth; ++c) {
    const T x = v[c], b = best[c];
    const bool beats = (x > b) | ((x != x) & (b == b));
    best[c] = beats ? x : b;
    arg[c] = beats ? offset : arg[c];
  }
}

// The gradient of one image's max pooling: for each window and channel, the window's first NaN,
// else its first maximum (row-major window order), receives the window's gradient. Index holds
// pixel offsets within the image (int32_t where they fit, for vector-width selects).
template <typename T, typename Index>
void MaxPoolGradImage(const Conv2DShape& s, const T* x, const T* g, T* dx) {
  const int64_t depth = s.in_depth;
  std::fill_n(dx, s.rows.in * s.cols.in * depth, T(0));  // per image: sharded and cache-warm
  std::vector<T> best(depth);
  std::vector<Index> arg(depth);  // pixel offset (element offset of channel 0) in the image
  ForEachWindow(s, [&](const Window& w) {
    if (w.Count() <= 0) return;
    const Index first = static_cast<Index>((w.h_lo * s.cols.in + w.w_lo) * depth);
    std::copy_n(x + first, depth, best.data());
    std::fill(arg.begin(), arg.end(), first);
    for (int64_t h = w.h_lo; h < w.h_hi; ++h)
      for (int64_t col = w.w_lo; col < w.w_hi; ++col) {
        const Index base = static_cast<Index>((h * s.cols.in + col) * depth);
        if (base != first) UpdateArgmax(x + base, base, depth, best.data(), arg.data());
      }
    const T* gw = g + w.out * depth;
    for (int64_t c = 0; c < depth; ++c) dx[arg[c] + c] += gw[c];
  });
}

template <typename T>
class MaxPoolGradOp : public PoolKernelBase {
 public:
  using PoolKernelBase::PoolKernelBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    auto shape = Shape(input.shape().dim_sizes(), &ctx->input(1), "orig_output");
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    OP_REQUIRES_OK(ctx, Shape(input.shape().dim_sizes(), &grad, "grad").status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t depth = s.in_depth, in_image = s.rows.in * s.cols.in * depth;
    const int64_t out_image = s.rows.out * s.cols.out * depth;
    const bool small = in_image <= std::numeric_limits<int32_t>::max();
    ForEachImage(ctx, s, [&](int64_t n) {
      const T* x = input.data<T>() + n * in_image;
      const T* g = grad.data<T>() + n * out_image;
      T* dx = out->data<T>() + n * in_image;
      if (small) MaxPoolGradImage<T, int32_t>(s, x, g, dx);
      else MaxPoolGradImage<T, int64_t>(s, x, g, dx);
    });
  }
};

template <typename T>
class AvgPoolGradOp : public PoolKernelBase {
 public:
  using PoolKernelBase::PoolKernelBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sizes = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx, sizes.dims() == 1 && sizes.NumElements() == 4,
                InvalidArgument("orig_input_shape must be a vector of 4 sizes, got shape ",
                                sizes.shape().DebugString()));
    std::vector<int64_t> dims(sizes.data<int32_t>(), sizes.data<int32_t>() + 4);
    for (int64_t d : dims)
      OP_REQUIRES(ctx, d >= 0, InvalidArgument("orig_input_shape must be non-negative, got ",
                                               DimsString(dims)));
    auto shape = Shape(dims, &grad, "grad");
    OP_REQUIRES_OK(ctx, shape.status());
    const Conv2DShape& s = *shape;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t depth = s.in_depth, in_image = s.rows.in * s.cols.in * depth;
    const int64_t out_image = s.rows.out * s.cols.out * depth;
    ForEachImage(ctx, s, [&](int64_t n) {
      T* dx = out->data<T>() + n * in_image;
      std::fill_n(dx, in_image, T(0));  // per image: sharded and cache-warm
      ForEachWindow(s, [&](const Window& w) {
        if (w.Count() <= 0) return;
        nn::ConstArrayMap<T> g(grad.data<T>() + n * out_image + w.out * depth, depth);
        const T scale = T(1) / T(w.Count());
        for (int64_t h = w.h_lo; h < w.h_hi; ++h)
          for (int64_t c = w.w_lo; c < w.w_hi; ++c)
            ArrayMap<T>(dx + (h * s.cols.in + c) * depth, depth) += g * scale;
      });
    });
  }
};

template <typename T> using MaxPoolOp = PoolOp<T, true>;
template <typename T> using AvgPoolOp = PoolOp<T, false>;

}  // namespace

FB_REGISTER_FLOAT_KERNELS("MaxPool", MaxPoolOp);
FB_REGISTER_FLOAT_KERNELS("AvgPool", AvgPoolOp);
FB_REGISTER_FLOAT_KERNELS("MaxPoolGrad", MaxPoolGradOp);
FB_REGISTER_FLOAT_KERNELS("AvgPoolGrad", AvgPoolGradOp);

}  // namespace fb
