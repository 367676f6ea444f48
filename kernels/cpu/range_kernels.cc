// CPU kernel of Range (engine/ops/math_range_ops.cc) for int32, int64, float and double.
// Values are start + i * delta (not a running sum, so float rounding does not accumulate; NumPy's
// arange does the same).
#include "engine/framework/op_kernel.h"
#include "engine/ops/math_range_util.h"

namespace fb {
namespace {

template <typename T>
class RangeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& start = ctx->input(0);
    const Tensor& delta = ctx->input(2);
    auto size = RangeSize(start, ctx->input(1), delta);
    OP_REQUIRES_OK(ctx, size.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{*size}, &out));
    const T first = start.scalar<T>(), step = delta.scalar<T>();
    T* values = out->data<T>();
    for (int64_t i = 0; i < *size; ++i) {
      if constexpr (std::is_integral_v<T>) {
        // Modulo 2^64, so that i * delta may exceed T while start + i * delta does not.
        values[i] = static_cast<T>(static_cast<uint64_t>(first) +
                                   static_cast<uint64_t>(i) * static_cast<uint64_t>(step));
      } else {
        values[i] = first + static_cast<T>(i) * step;
      }
    }
  }
};

#define FB_REGISTER_RANGE(T)                                                              \
  REGISTER_KERNEL(KernelDefBuilder("Range").Device(DEVICE_CPU).TypeConstraint<T>("Tidx"), \
                  RangeOp<T>)
FB_REGISTER_RANGE(int32_t);
FB_REGISTER_RANGE(int64_t);
FB_REGISTER_RANGE(float);
FB_REGISTER_RANGE(double);
#undef FB_REGISTER_RANGE

}  // namespace
}  // namespace fb
