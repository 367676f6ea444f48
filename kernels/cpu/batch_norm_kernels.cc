// CPU FusedBatchNorm and FusedBatchNormGrad (engine/ops/nn_ops_batch_norm.cc). x is viewed as a
// row-major [M, C] matrix (M = N*H*W rows of C channels, NHWC). Per-channel sums are
// accumulated over blocks of rows, one block per task on the intra-op pool, and the blocks'
// partial sums added at the end: within a block, rows are summed in T with Eigen's vectorized
// arrays for 32 rows at a time, and each such chunk is added into double accumulators, so
// rounding grows with the chunk, not with M. The element-wise pass (y = x * a + b per channel)
// is split over rows the same way. Training forward and backward read x twice (sums, then the
// element-wise pass); inference backward reads it once. The variance is computed from sums of
// (x - K) and (x - K)^2 with K the channel's first value, which keeps the subtraction exact
// enough for data whose mean is far from 0 (shifted-data algorithm, Chan, Golub and LeVeque 1983).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/batch_norm_io.h"
#include "kernels/cpu/nn_kernel_util.h"

namespace fb {
namespace {

using batch_norm::Dims;

// Per-channel double sums over the rows of [rows, C]: `width` sums per channel (acc[w * C + c]),
// accumulated by accumulate(row_begin, row_end, acc) per block in parallel and then added up.
template <typename Accumulate>
std::vector<double> ChannelSums(OpKernelContext* ctx, int64_t rows, int64_t channels, int width,
                                const Accumulate& accumulate) {
  ThreadPool* pool = ctx->intra_op_pool();
  const int64_t threads = pool ? pool->NumThreads() : 1;
  const int64_t kMinElementsPerBlock = 1 << 14;
  const int64_t blocks = std::clamp<int64_t>(rows * channels / kMinElementsPerBlock, 1,
                                             std::max<int64_t>(1, std::min(4 * threads, rows)));
  const int64_t stride = width * channels;
  std::vector<double> partial(blocks * stride, 0.0);
  nn::Shard(ctx, blocks, std::max<int64_t>(1, rows / blocks * channels * 2),
            [&](int64_t begin, int64_t end) {
              for (int64_t b = begin; b < end; ++b)
                accumulate(b * rows / blocks, (b + 1) * rows / blocks, partial.data() + b * stride);
            });
  std::vector<double> sums(partial.begin(), partial.begin() + stride);
  for (int64_t b = 1; b < blocks; ++b)
    for (int64_t i = 0; i < stride; ++i) sums[i] += partial[b * stride + i];
  return sums;
}

template <typename T>
using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
template <typename T>
using ConstRow = Eigen::Map<const Array<T>>;
template <typename T>
using Row = Eigen::Map<Array<T>>;

// Two per-channel sums over rows, kept in T for up to kChunkRows rows and then added into the
// double totals acc[0, C) and acc[C, 2C) (also on destruction).
template <typename T>
class ChunkedSums {
 public:
  static constexpr int kChunkRows = 32;
  ChunkedSums(int64_t channels, double* acc)
      : p1_(Array<T>::Zero(channels)),
        p2_(Array<T>::Zero(channels)),
        s1_(acc, channels),
        s2_(acc + channels, channels) {}
  ~ChunkedSums() { Flush(); }
  template <typename A, typename B>
  void Add(const A& a, const B& b) {
    p1_ += a;
    p2_ += b;
    if (++rows_ == kChunkRows) Flush();
  }

 private:
  void Flush() {
    if (rows_ == 0) return;
    s1_ += p1_.template cast<double>();
    s2_ += p2_.template cast<double>();
    p1_.setZero();
    p2_.setZero();
    rows_ = 0;
  }
  Array<T> p1_, p2_;
  Row<double> s1_, s2_;
  int rows_ = 0;
};

// out[r, c] = in[r, c] * a[c] + b[c] over [rows, C], split over rows on the intra-op pool.
template <typename T>
void AffinePerChannel(OpKernelContext* ctx, const T* in, int64_t rows, int64_t channels,
                      const Array<T>& a, const Array<T>& b, T* out) {
  nn::Shard(ctx, rows, 2 * channels + 1, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r)
      Row<T>(out + r * channels, channels) = ConstRow<T>(in + r * channels, channels) * a + b;
  });
}

template <typename T>
void FillNaN(Tensor* t) {
  std::fill(t->data<T>(), t->data<T>() + t->NumElements(), std::numeric_limits<T>::quiet_NaN());
}

// Batch mean and biased variance of x [rows, C] per channel (sums of shifted data, see above).
template <typename T>
void BatchMoments(OpKernelContext* ctx, const T* x, int64_t rows, int64_t channels,
                  std::vector<double>* mean, std::vector<double>* variance) {
  const Array<T> shift = ConstRow<T>(x, channels);
  std::vector<double> sums =
      ChannelSums(ctx, rows, channels, 2, [&](int64_t begin, int64_t end, double* acc) {
        ChunkedSums<T> chunk(channels, acc);
        for (int64_t r = begin; r < end; ++r) {
          const auto d = ConstRow<T>(x + r * channels, channels) - shift;
          chunk.Add(d, d.square());
        }
      });
  mean->resize(channels);
  variance->resize(channels);
  const double m = static_cast<double>(rows);
  for (int64_t c = 0; c < channels; ++c) {
    const double d = sums[c] / m;
    (*mean)[c] = static_cast<double>(shift[c]) + d;
    (*variance)[c] = std::max(0.0, sums[channels + c] / m - d * d);
  }
}

template <typename T>
class FusedBatchNormOp : public batch_norm::OpBase<false> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const batch_norm::Dims& dims, Tensor* out[5]) override {
    const Tensor& x = ctx->input(0);
    const int64_t rows = dims.rows, channels = dims.channels;
    std::vector<double> mean, variance;
    if (attrs_.is_training) {
      if (rows == 0) {
        for (int i = 1; i < 5; ++i) FillNaN<T>(out[i]);
        return;
      }
      BatchMoments(ctx, x.data<T>(), rows, channels, &mean, &variance);
    } else {
      mean.assign(ctx->input(3).data<T>(), ctx->input(3).data<T>() + channels);
      variance.assign(ctx->input(4).data<T>(), ctx->input(4).data<T>() + channels);
    }
    Normalize(ctx, x, mean, variance, out[0]);
    // TensorFlow's CPU kernel: batch_variance is unbiased (for moving averages), the reserve
    // space keeps the biased variance the normalization used.
    const double bessel =
        attrs_.is_training && rows > 1 ? static_cast<double>(rows) / (rows - 1) : 1.0;
    for (int64_t c = 0; c < channels; ++c) {
      out[1]->data<T>()[c] = out[3]->data<T>()[c] = static_cast<T>(mean[c]);
      out[2]->data<T>()[c] = static_cast<T>(variance[c] * bessel);
      out[4]->data<T>()[c] = static_cast<T>(variance[c]);
    }
  }

 private:
  // y = (x - mean) * scale / sqrt(variance + epsilon) + offset = x * a + b per channel.
  void Normalize(OpKernelContext* ctx, const Tensor& x, const std::vector<double>& mean,
                 const std::vector<double>& variance, Tensor* y) const {
    const int64_t channels = x.dim_size(3);
    if (channels == 0) return;
    const T* scale = ctx->input(1).data<T>();
    const T* offset = ctx->input(2).data<T>();
    Array<T> a(channels), b(channels);
    for (int64_t c = 0; c < channels; ++c) {
      const double ac = scale[c] / std::sqrt(variance[c] + attrs_.epsilon);
      a[c] = static_cast<T>(ac);
      b[c] = static_cast<T>(offset[c] - mean[c] * ac);
    }
    AffinePerChannel(ctx, x.data<T>(), x.NumElements() / channels, channels, a, b, y->data<T>());
  }
};

template <typename T>
class FusedBatchNormGradOp : public batch_norm::OpBase<true> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const batch_norm::Dims& dims, Tensor* out[5]) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const int64_t rows = dims.rows, channels = dims.channels;
    const T* scale = ctx->input(2).data<T>();
    const T* var = ctx->input(4).data<T>();
    const ConstRow<T> mean(ctx->input(3).data<T>(), channels);
    Array<T> inv(channels), a(channels);
    for (int64_t c = 0; c < channels; ++c) {
      const double ic = 1.0 / std::sqrt(static_cast<double>(var[c]) + attrs_.epsilon);
      inv[c] = static_cast<T>(ic);
      a[c] = static_cast<T>(scale[c] * ic);
    }
    // sums[c] = sum(dy), sums[C + c] = sum(dy * (x - mean)); inference also writes dx = a * dy.
    const bool write_dx = !attrs_.is_training;
    std::vector<double> sums =
        ChannelSums(ctx, rows, channels, 2, [&](int64_t begin, int64_t end, double* acc) {
          ChunkedSums<T> chunk(channels, acc);
          for (int64_t r = begin; r < end; ++r) {
            const int64_t i = r * channels;
            const ConstRow<T> g(dy.data<T>() + i, channels);
            chunk.Add(g, g * (ConstRow<T>(x.data<T>() + i, channels) - mean));
            if (write_dx) Row<T>(out[0]->data<T>() + i, channels) = a * g;
          }
        });
    for (int64_t c = 0; c < channels; ++c) {
      out[1]->data<T>()[c] = static_cast<T>(sums[channels + c] * inv[c]);
      out[2]->data<T>()[c] = static_cast<T>(sums[c]);
    }
    if (attrs_.is_training && rows > 0) TrainingInputGrad(ctx, rows, a, inv, sums, out[0]);
  }

 private:
  // dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat)), xhat = (x - mean) * inv,
  // written as dx = a * dy + bx * (x - mean) + b0 per channel: with S = sum(dy * (x - mean)),
  // bx = -a * inv^2 * S / M and b0 = -a * mean(dy).
  void TrainingInputGrad(OpKernelContext* ctx, int64_t rows, const Array<T>& a, const Array<T>& inv,
                         const std::vector<double>& sums, Tensor* dx_out) const {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const int64_t channels = x.dim_size(3);
    const ConstRow<T> mean(ctx->input(3).data<T>(), channels);
    const double m = static_cast<double>(rows);
    Array<T> bx(channels), b0(channels);
    for (int64_t c = 0; c < channels; ++c) {
      const double ic = inv[c];
      const double bxc = -static_cast<double>(a[c]) * ic * ic * sums[channels + c] / m;
      bx[c] = static_cast<T>(bxc);
      b0[c] = static_cast<T>(-static_cast<double>(a[c]) * sums[c] / m);
    }
    nn::Shard(ctx, rows, 3 * channels + 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t i = r * channels;
        Row<T>(dx_out->data<T>() + i, channels) =
            a * ConstRow<T>(dy.data<T>() + i, channels) +
            bx * (ConstRow<T>(x.data<T>() + i, channels) - mean) + b0;
      }
    });
  }
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("FusedBatchNorm", FusedBatchNormOp);
FB_REGISTER_FLOAT_KERNELS("FusedBatchNormGrad", FusedBatchNormGradOp);

}  // namespace fb
