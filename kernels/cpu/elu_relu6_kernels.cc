// CPU kernels of Relu6, Elu, their gradient ops and L2Loss (engine/ops/nn_ops_elu_relu6.cc), on
// the element-wise kernel shapes of kernels/cpu/activation.h.
#include "kernels/cpu/activation.h"

namespace fb {
namespace {

using nn::BinaryGradKernel;
using nn::UnaryKernel;

struct Relu6Fn {
  static constexpr int64_t kCostNs = 1;
  template <typename X, typename Y>
  static void Apply(const X& x, Y* y) {
    using T = typename X::Scalar;
    // Written with selects so that NaN stays NaN (max/min may drop it).
    *y = (x < T(0)).select(T(0), (x > T(6)).select(T(6), x));
  }
};
struct EluFn {
  static constexpr int64_t kCostNs = 4;
  template <typename X, typename Y>
  static void Apply(const X& x, Y* y) {
    using T = typename X::Scalar;
    *y = (x < T(0)).select(x.exp() - T(1), x);
  }
};

struct Relu6GradFn {  // (gradients, features)
  static constexpr const char* kNameA = "gradients";
  static constexpr const char* kNameB = "features";
  template <typename G, typename F>
  static auto Apply(const G& g, const F& f) {
    using T = typename G::Scalar;
    return ((f > T(0)) && (f < T(6))).select(g, T(0));
  }
};
struct EluGradFn {  // (gradients, outputs)
  static constexpr const char* kNameA = "gradients";
  static constexpr const char* kNameB = "outputs";
  template <typename G, typename Y>
  static auto Apply(const G& g, const Y& y) {
    using T = typename G::Scalar;
    return (y < T(0)).select(g * (y + T(1)), g);
  }
};

template <typename T>
using Relu6Op = UnaryKernel<T, Relu6Fn>;
template <typename T>
using EluOp = UnaryKernel<T, EluFn>;
template <typename T>
using Relu6GradOp = BinaryGradKernel<T, Relu6GradFn>;
template <typename T>
using EluGradOp = BinaryGradKernel<T, EluGradFn>;

// output = sum(t^2) / 2, a scalar.
template <typename T>
class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{}, &out));
    out->scalar<T>() = t.NumElements() == 0 ? T(0) : t.flat<T>().square().sum() / T(2);
  }
};

}  // namespace

FB_REGISTER_FLOAT_KERNELS("Relu6", Relu6Op);
FB_REGISTER_FLOAT_KERNELS("Elu", EluOp);
FB_REGISTER_FLOAT_KERNELS("Relu6Grad", Relu6GradOp);
FB_REGISTER_FLOAT_KERNELS("EluGrad", EluGradOp);
FB_REGISTER_FLOAT_KERNELS("L2Loss", L2LossOp);

}  // namespace fb
