#pragma once
// The CPU kernel of every broadcasting binary element-wise op (Add, Mul, Greater, ...): a BCast
// of the two input shapes (kernels/cpu/bcast.h) chooses a path, and each path applies an Eigen
// binary functor to contiguous segments, so the inner loops are Eigen's vectorised array code
// (whitepaper 5.4). Large outputs are split over the device's intra-op thread pool.
#include <type_traits>

#include <Eigen/Core>

#include "engine/framework/op_kernel.h"
#include "engine/framework/thread_pool.h"
#include "kernels/cpu/bcast.h"
#include "kernels/cpu/forward_input.h"

namespace fb {
namespace cwise {

template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using Vec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// z[0..len) = f(x, y) where each operand is a contiguous vector or, when its `*_vec` flag is
// false, the single value it points at.
template <typename T, typename Tout, typename F>
void Segment(const T* x, bool x_vec, const T* y, bool y_vec, Tout* z, int64_t len, const F& f) {
  using A = Eigen::Array<T, Eigen::Dynamic, 1>;
  if (x_vec && y_vec) Vec<Tout>(z, len) = ConstVec<T>(x, len).binaryExpr(ConstVec<T>(y, len), f);
  else if (x_vec) Vec<Tout>(z, len) = ConstVec<T>(x, len).binaryExpr(A::Constant(len, *y), f);
  else Vec<Tout>(z, len) = A::Constant(len, *x).binaryExpr(ConstVec<T>(y, len), f);
}

// Output elements [begin, end) of a kGeneral broadcast, row by row over the collapsed dims.
// The innermost collapsed dim has stride 1 or 0 for each operand, so every row is a Segment.
template <typename T, typename Tout, typename F>
void GeneralRange(const BCast& b, const T* x, const T* y, Tout* z, int64_t begin, int64_t end,
                  const F& f) {
  const int rank = static_cast<int>(b.dims().size());
  const int64_t cols = b.dims().back();
  std::vector<int64_t> index(rank, 0);  // multi-index of the current row (last entry unused)
  int64_t row = begin / cols;
  for (int d = rank - 2; d >= 0; --d) index[d] = row % b.dims()[d], row /= b.dims()[d];
  const bool x_vec = b.x_strides().back() == 1, y_vec = b.y_strides().back() == 1;
  for (int64_t i = begin; i < end;) {
    int64_t col = i % cols, len = std::min(end - i, cols - col);
    int64_t xo = x_vec ? col : 0, yo = y_vec ? col : 0;
    for (int d = 0; d < rank - 1; ++d) xo += index[d] * b.x_strides()[d], yo += index[d] * b.y_strides()[d];
    Segment(x + xo, x_vec, y + yo, y_vec, z + i, len, f);
    i += len;
    for (int d = rank - 2; d >= 0 && ++index[d] == b.dims()[d]; --d) index[d] = 0;
  }
}

// Output elements [begin, end) of z = f(x, y) under broadcast `b`.
template <typename T, typename Tout, typename F>
void BinaryRange(const BCast& b, const T* x, const T* y, Tout* z, int64_t begin, int64_t end,
                 const F& f) {
  const int64_t len = end - begin;
  switch (b.kind()) {
    case BCast::Kind::kSameShape:
      return Segment(x + begin, true, y + begin, true, z + begin, len, f);
    case BCast::Kind::kScalarX:
      return Segment(x, false, y + begin, true, z + begin, len, f);
    case BCast::Kind::kScalarY:
      return Segment(x + begin, true, y, false, z + begin, len, f);
    case BCast::Kind::kRowX:
    case BCast::Kind::kRowY: {
      // Trailing-dims broadcast: the smaller operand is one row of `cols` values.
      const bool row_x = b.kind() == BCast::Kind::kRowX;
      const int64_t cols = b.dims()[1];
      for (int64_t i = begin; i < end;) {
        int64_t col = i % cols, n = std::min(end - i, cols - col);
        Segment(row_x ? x + col : x + i, true, row_x ? y + i : y + col, true, z + i, n, f);
        i += n;
      }
      return;
    }
    case BCast::Kind::kGeneral:
      return GeneralRange(b, x, y, z, begin, end, f);
  }
}

template <typename T>
bool HasZero(const Tensor& t) {
  return (t.flat<T>() == T(0)).any();
}

// Integer x / y truncated towards zero (C++ and TensorFlow's Div on integers), with the one
// quotient that does not fit defined as NumPy and TensorFlow's wrap-around:
// lowest() / -1 == lowest() (dividing it in hardware raises SIGFPE). Division by zero is
// rejected before this runs (BinaryOp's InvalidArgument "integer division by zero").
template <typename T>
struct IntDivOp {
  using result_type = T;
  T operator()(const T& x, const T& y) const {
    static_assert(std::is_integral_v<T>);
    if constexpr (std::is_signed_v<T>) {
      if (y == T(-1)) return static_cast<T>(std::make_unsigned_t<T>(0) -
                                            static_cast<std::make_unsigned_t<T>>(x));
    }
    return x / y;
  }
};

// Elementwise max/min that return NaN when either operand is NaN, as TensorFlow's and NumPy's
// maximum/minimum do (Eigen's default returns one operand or the other depending on the SIMD
// path). Integer types keep Eigen's fast functor.
template <typename T>
using MaxOp = Eigen::internal::scalar_max_op<
    T, T, std::is_floating_point_v<T> ? Eigen::PropagateNaN : Eigen::PropagateFast>;
template <typename T>
using MinOp = Eigen::internal::scalar_min_op<
    T, T, std::is_floating_point_v<T> ? Eigen::PropagateNaN : Eigen::PropagateFast>;

// kCostNs: rough cost of one output element in ns, for splitting over threads.
template <typename T, typename Functor, int kCostNs = 1>
class BinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using Tout = typename Functor::result_type;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if constexpr (std::is_integral_v<T> && (std::is_same_v<Functor, IntDivOp<T>> ||
                  std::is_same_v<Functor, Eigen::internal::scalar_quotient_op<T, T>>)) {
      OP_REQUIRES(ctx, !HasZero<T>(y), InvalidArgument("integer division by zero"));
    }
    if (x.shape() == y.shape() || x.dims() == 0 || y.dims() == 0) return ComputeSimple(ctx, x, y);
    auto b = BCast::Make(x.shape(), y.shape());
    OP_REQUIRES_OK(ctx, b.status());
    auto out = AllocateOutput(ctx, b->output_shape());
    OP_REQUIRES_OK(ctx, out.status());
    Tensor* z = *out;
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    Tout* zp = z->data<Tout>();
    ctx->intra_op_pool()->ParallelFor(z->NumElements(), kCostNs, [&](int64_t begin, int64_t end) {
      BinaryRange(*b, xp, yp, zp, begin, end, Functor());
    });
  }

 private:
  // Equal shapes, or a rank-0 operand (the output takes the other's shape): one Segment, no
  // BCast, and for small outputs no thread-pool call (the small element-wise ops of training
  // loops and control flow cost 2x more through the general path).
  void ComputeSimple(OpKernelContext* ctx, const Tensor& x, const Tensor& y) {
    const bool x_vec = x.dims() != 0 || y.dims() == 0, y_vec = y.dims() != 0 || x.dims() == 0;
    auto out = AllocateOutput(ctx, x_vec ? x.shape() : y.shape());
    OP_REQUIRES_OK(ctx, out.status());
    Tensor* z = *out;
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    Tout* zp = z->data<Tout>();
    const int64_t n = z->NumElements();
    if (n * kCostNs < kSerialCostNs) return Segment(xp, x_vec, yp, y_vec, zp, n, Functor());
    ctx->intra_op_pool()->ParallelFor(n, kCostNs, [&](int64_t begin, int64_t end) {
      Segment(xp + (x_vec ? begin : 0), x_vec, yp + (y_vec ? begin : 0), y_vec, zp + begin,
              end - begin, Functor());
    });
  }
  // The output: the buffer of an input of the output's shape and dtype that nothing else holds
  // (x, else y; every path writes z[i] after reading x[i] and y[i]), or a new tensor.
  static StatusOr<Tensor*> AllocateOutput(OpKernelContext* ctx, const TensorShape& shape) {
    if constexpr (std::is_same_v<T, Tout>) {
      const DataType dt = ctx->expected_output_dtype(0);
      for (int in : {0, 1}) {
        const Tensor& t = ctx->input(in);
        if (t.shape() == shape && t.BufferRefCount() == 1)
          return ForwardInputOrAllocateOutput(ctx, in, 0, dt, shape);
      }
    }
    Tensor* z = nullptr;
    RETURN_IF_ERROR(ctx->allocate_output(0, shape, &z));
    return z;
  }
  // Below this much work ThreadPool::ParallelFor runs serially anyway.
  static constexpr int64_t kSerialCostNs = 20000;
};

}  // namespace cwise
}  // namespace fb
