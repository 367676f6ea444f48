// CPU kernels for Relu, Sigmoid, Tanh, their gradient ops, BiasAdd and BiasAddGrad
// (engine/ops/nn_ops_activation.cc). Element-wise work is vectorised by Eigen and sharded over
// the intra-op pool. Relu(NaN) is NaN and ReluGrad routes no gradient to a NaN feature (the
// feature is not > 0), as TensorFlow's kernels do.
#include "kernels/bias_shapes.h"
#include "kernels/cpu/activation.h"
#include "kernels/cpu/cwise_binary.h"

namespace fb::nn {

// ReluGrad's element op: g where f > 0, else 0 (also for a NaN feature). As a packet op, one
// vector AND of g with the comparison mask: Eigen 3.4 does not vectorize select().
template <typename T>
struct ReluGradOp {
  T operator()(const T& g, const T& f) const { return f > T(0) ? g : T(0); }
  template <typename Packet>
  Packet packetOp(const Packet& g, const Packet& f) const {
    using namespace Eigen::internal;  // NOLINT: Eigen's packet primitives
    return pand(g, pcmp_lt(pzero(f), f));
  }
};

}  // namespace fb::nn

template <typename T>
struct Eigen::internal::functor_traits<fb::nn::ReluGradOp<T>> {
  enum { Cost = 1, PacketAccess = true };
};

namespace fb {
namespace {

using nn::BinaryGradKernel;
using nn::UnaryKernel;

struct ReluFn {
  static constexpr int64_t kCostNs = 1;
  template <typename X, typename Y>
  static void Apply(const X& x, Y* y) {  // Relu(NaN) = NaN, as TensorFlow's
    using T = typename X::Scalar;
    *y = x.binaryExpr(X::PlainObject::Constant(x.size(), T(0)), cwise::MaxOp<T>());
  }
};
struct SigmoidFn {
  static constexpr int64_t kCostNs = 4;
  template <typename X, typename Y>
  static void Apply(const X& x, Y* y) { *y = x.logistic(); }
};
struct TanhFn {
  static constexpr int64_t kCostNs = 4;
  template <typename X, typename Y>
  static void Apply(const X& x, Y* y) { *y = x.tanh(); }
};

struct ReluGradFn {  // (gradients, features)
  static constexpr const char* kNameA = "gradients";
  static constexpr const char* kNameB = "features";
  template <typename G, typename F>
  static auto Apply(const G& g, const F& f) {
    return g.binaryExpr(f, nn::ReluGradOp<typename G::Scalar>());
  }
};
struct SigmoidGradFn {  // (y, dy)
  static constexpr const char* kNameA = "y";
  static constexpr const char* kNameB = "dy";
  template <typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) { return dy * y * (typename Y::Scalar(1) - y); }
};
struct TanhGradFn {  // (y, dy)
  static constexpr const char* kNameA = "y";
  static constexpr const char* kNameB = "dy";
  template <typename Y, typename D>
  static auto Apply(const Y& y, const D& dy) { return dy * (typename Y::Scalar(1) - y * y); }
};

template <typename T> using ReluOp = UnaryKernel<T, ReluFn>;
template <typename T> using SigmoidOp = UnaryKernel<T, SigmoidFn>;
template <typename T> using TanhOp = UnaryKernel<T, TanhFn>;
template <typename T> using ReluGradOp = BinaryGradKernel<T, ReluGradFn>;
template <typename T> using SigmoidGradOp = BinaryGradKernel<T, SigmoidGradFn>;
template <typename T> using TanhGradOp = BinaryGradKernel<T, TanhGradFn>;

// output[..., c] = value[..., c] + bias[c].
template <typename T>
class BiasAddOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckBiasAddShapes(value.shape(), bias.shape()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, value.shape(), &out));
    auto in = value.matrix<T>();
    auto o = out->matrix<T>();
    auto b = bias.flat<T>().matrix().transpose();
    nn::Shard(ctx, in.rows(), in.cols(), [&](int64_t lo, int64_t hi) {
      o.middleRows(lo, hi - lo) = in.middleRows(lo, hi - lo).rowwise() + b;
    });
  }
};

// output[c] = sum over all other dims of out_backprop[..., c].
template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    OP_REQUIRES(ctx, dy.dims() >= 2,
                InvalidArgument("out_backprop must be at least 2-D, got shape ",
                                dy.shape().DebugString()));
    int64_t depth = dy.dim_size(dy.dims() - 1);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{depth}, &out));
    // Rows in chunks of about 64K values, each summed into its own partial on the intra-op
    // pool, then the partials in chunk order: deterministic whatever the number of threads.
    const int64_t rows = depth == 0 ? 0 : dy.NumElements() / depth;
    const int64_t chunk_rows =
        std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(1, depth));
    const int64_t chunks = (rows + chunk_rows - 1) / chunk_rows;
    std::vector<T> partial(chunks * depth, T(0));
    const T* g = dy.data<T>();
    nn::Shard(ctx, chunks, chunk_rows * depth, [&](int64_t begin, int64_t end) {
      for (int64_t c = begin; c < end; ++c) {
        nn::ArrayMap<T> acc(partial.data() + c * depth, depth);
        for (int64_t r = c * chunk_rows; r < std::min(rows, (c + 1) * chunk_rows); ++r)
          acc += nn::ConstArrayMap<T>(g + r * depth, depth);
      }
    });
    nn::ArrayMap<T> sum(out->data<T>(), depth);
    sum.setZero();
    for (int64_t c = 0; c < chunks; ++c)
      sum += nn::ConstArrayMap<T>(partial.data() + c * depth, depth);
  }
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("Relu", ReluOp);
FB_REGISTER_FLOAT_KERNELS("Sigmoid", SigmoidOp);
FB_REGISTER_FLOAT_KERNELS("Tanh", TanhOp);
FB_REGISTER_FLOAT_KERNELS("ReluGrad", ReluGradOp);
FB_REGISTER_FLOAT_KERNELS("SigmoidGrad", SigmoidGradOp);
FB_REGISTER_FLOAT_KERNELS("TanhGrad", TanhGradOp);
FB_REGISTER_FLOAT_KERNELS("BiasAdd", BiasAddOp);
FB_REGISTER_FLOAT_KERNELS("BiasAddGrad", BiasAddGradOp);

}  // namespace fb
