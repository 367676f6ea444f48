// CPU kernels of StopGradient (every dtype) and CheckNumerics (half, bfloat16, float, double);
// see engine/ops/array_debug_ops.cc. Both forward their input without copying.
#include <cmath>

#include "engine/framework/op_kernel.h"

namespace fb {

namespace {

class StopGradientOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->forward_input(0, 0); }
  bool IsExpensive() const override { return false; }
};

template <typename T>
class CheckNumericsOp : public OpKernel {
 public:
  explicit CheckNumericsOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("message", &message_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const T* d = t.data<T>();
    bool nan = false, inf = false;
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      // half and bfloat16 widen to float exactly; double stays double (1e300 is finite).
      const auto v = static_cast<std::conditional_t<std::is_same_v<T, double>, double, float>>(d[i]);
      nan = nan || std::isnan(v);
      inf = inf || std::isinf(v);
    }
    OP_REQUIRES(ctx, !nan && !inf,
                InvalidArgument(message_, " : Tensor had ",
                                nan && inf ? "Inf and NaN" : (nan ? "NaN" : "Inf"), " values"));
    ctx->forward_input(0, 0);
  }

 private:
  std::string message_;
};

REGISTER_KERNEL(KernelDefBuilder("StopGradient").Device(DEVICE_CPU), StopGradientOp);
REGISTER_KERNEL(KernelDefBuilder("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<half>("T"),
                CheckNumericsOp<half>);
REGISTER_KERNEL(KernelDefBuilder("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<bfloat16>("T"),
                CheckNumericsOp<bfloat16>);
REGISTER_KERNEL(KernelDefBuilder("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                CheckNumericsOp<float>);
REGISTER_KERNEL(KernelDefBuilder("CheckNumerics").Device(DEVICE_CPU).TypeConstraint<double>("T"),
                CheckNumericsOp<double>);

}  // namespace

}  // namespace fb
