// CPU kernel of Cast between every pair of the 13 numeric dtypes (engine/ops/math_ops.cc):
// the conversion function is chosen once, when the kernel is built, from a 13 x 13 table.
#include <type_traits>

#include "engine/framework/op_kernel.h"
#include "engine/framework/thread_pool.h"

namespace fb {
namespace {

const DataType kCastTypes[] = {
    DataType::kFloat,  DataType::kDouble, DataType::kHalf,   DataType::kBFloat16, DataType::kInt8,
    DataType::kInt16,  DataType::kInt32,  DataType::kInt64,  DataType::kUInt8,    DataType::kUInt16,
    DataType::kUInt32, DataType::kUInt64, DataType::kBool,
};

// Calls fn(T{}) for the C++ type of a Cast dtype; false for other dtypes.
template <typename Fn>
bool VisitCastType(DataType dt, Fn&& fn) {
  if (dt == DataType::kString || dt == DataType::kComplex64 || dt == DataType::kInvalid)
    return false;
  VisitDataType(dt, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (!std::is_same_v<T, std::string> && !std::is_same_v<T, complex64>) fn(T{});
    return 0;
  });
  return true;
}

template <typename T>
constexpr bool kIs16BitFloat = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

template <typename Dst, typename Src>
Dst CastValue(Src v) {
  if constexpr (std::is_same_v<Dst, bool>) {
    return v != Src(0);
  } else if constexpr (kIs16BitFloat<Src> || kIs16BitFloat<Dst>) {
    return static_cast<Dst>(static_cast<float>(v));  // half and bfloat16 convert through float
  } else {
    return static_cast<Dst>(v);
  }
}

template <typename Dst, typename Src>
void CastRange(const void* src, void* dst, int64_t begin, int64_t end) {
  const Src* s = static_cast<const Src*>(src);
  Dst* d = static_cast<Dst*>(dst);
  for (int64_t i = begin; i < end; ++i) d[i] = CastValue<Dst>(s[i]);
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* c) : OpKernel(c) {
    DataType src = input_type(0), dst = output_type(0);
    VisitCastType(src, [&](auto s) {
      VisitCastType(dst, [&](auto d) { cast_ = &CastRange<decltype(d), decltype(s)>; });
    });
    if (!cast_)
      c->SetStatus(Unimplemented("Cast from ", DataTypeString(src), " to ", DataTypeString(dst)));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    if (input_type(0) == output_type(0)) return ctx->forward_input(0, 0);
    Tensor* y;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &y));
    const void* src = x.raw_data();
    void* dst = y->raw_data();
    ctx->intra_op_pool()->ParallelFor(x.NumElements(), 1, [&](int64_t begin, int64_t end) {
      cast_(src, dst, begin, end);
    });
  }

 private:
  void (*cast_)(const void*, void*, int64_t, int64_t) = nullptr;
};

const bool kRegistered = [] {
  for (DataType dt : kCastTypes)
    KernelRegistry::Global()->Register(
        KernelDefBuilder("Cast").Device(DEVICE_CPU).TypeConstraint("SrcT", dt),
        [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
          return std::make_unique<CastOp>(c);
        });
  return true;
}();

}  // namespace
}  // namespace fb
